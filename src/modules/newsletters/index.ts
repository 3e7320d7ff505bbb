export { autoSubscribeStatements } from './auto-subscribe';
export { newsletterOfToken, subscribeContact, type UnsubscribeTarget, unsubscribeByToken } from './subscriptions';
