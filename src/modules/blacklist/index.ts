export { addToBlacklist, blacklistLookup, blacklistLookupMany, blacklistRows, contactPhoneBlacklisted, phoneBlacklisted } from './service';
