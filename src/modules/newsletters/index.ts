export { autoSubscribeStatements } from './auto-subscribe';
export { newsletterOfToken, subscribeContact, unsubscribeByToken } from './subscriptions';
