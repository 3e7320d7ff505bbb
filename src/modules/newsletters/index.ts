export { autoSubscribeStatements } from './auto-subscribe';
export { newsletterContactRecords } from './contact-records';
export { newsletterOfToken, subscribeContact, unsubscribeByToken } from './subscriptions';
