/** The release both OpenAPI documents state: `package.json`'s `version` and the newest CHANGELOG.md heading (a test holds the three equal). */
export const RELEASE_VERSION = '0.4.0';

/** The MIT license with its SPDX `identifier` (OpenAPI 3.1); the config's type is OpenAPI 3.0's, which has no `identifier`. */
export const LICENSE = { name: 'MIT', identifier: 'MIT' };
