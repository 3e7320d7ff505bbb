export { idempotentPosts } from './middleware';
