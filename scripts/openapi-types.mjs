#!/usr/bin/env node
// Generates the typed client's types (client/schema.ts) from the committed
// OpenAPI snapshot (openapi.json) with openapi-typescript.
//   node scripts/openapi-types.mjs           fails when client/schema.ts is stale (part of `npm test`)
//   node scripts/openapi-types.mjs --write   rewrites it (part of `npm run openapi:write`)
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const snapshot = join(root, 'openapi.json');
const target = join(root, 'client', 'schema.ts');

const HEADER = `${COMMENT_HEADER}// Generated from openapi.json by \`npm run openapi:write\`.\n\n`;

export async function generateTypes() {
  const ast = await openapiTS(JSON.parse(readFileSync(snapshot, 'utf8')), { alphabetize: false, silent: true });
  return HEADER + astToString(ast);
}

const generated = await generateTypes();
if (process.argv.includes('--write')) {
  writeFileSync(target, generated);
  console.log('client/schema.ts written from openapi.json');
} else if (!existsSync(target) || readFileSync(target, 'utf8') !== generated) {
  console.error(
    'client/schema.ts is stale: it differs from the types generated from openapi.json. Run `npm run openapi:write` and commit the result.',
  );
  process.exit(1);
} else {
  console.log('client/schema.ts matches openapi.json');
}
