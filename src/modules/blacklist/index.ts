export { addToBlacklist, blacklistLookup, blacklistRows, contactPhoneBlacklisted, phoneBlacklisted } from './service';
