export {
  addPlatformSuppression,
  listPlatformSuppressions,
  onPlatformList,
  platformListed,
  platformListJson,
  removePlatformSuppression,
} from './platform-list';
export { shardPlatformListed, suppressedQuery, suppressedSql, suppressionRows, suppressStatement } from './service';
