import { isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

/**
 * E.164 form of a phone number, reading local numbers in the workspace's
 * default country. Returns null when the text is not a possible phone number.
 */
export function toE164(input: string, defaultCountry: string): string | null {
  const text = input.trim();
  // Without a digit nothing can parse, and the parser's refusal (a thrown error) is costly.
  if (!/\d/.test(text)) return null;
  const parsed = parsePhoneNumberFromString(text, { defaultCountry: defaultCountry.toUpperCase() as CountryCode, extract: false });
  if (!parsed?.isPossible()) return null;
  return parsed.number;
}

/** Whether local numbers can be read in this region (an ISO 3166 alpha-2 code the numbering metadata holds, any case). */
export const isPhoneCountry = (code: string) => isSupportedCountry(code.toUpperCase());
