#!/usr/bin/env node
// Runs after `npm install`/`npm ci` (package.json `postinstall`). drizzle-orm's
// `is(value, type)` decides every chunk of every statement it builds; when
// `value instanceof type` fails it walks the value's class chain again on every
// call. Building one deal's write batch made thousands of such calls, about a
// tenth of the request's CPU. This keeps the function's answers and memoizes
// the entity kinds of each class (classes and their kinds never change), the
// approach upstream took in drizzle-orm 1.0 ("[sql]: Optimize conditions").
// It rewrites the installed file only when it holds exactly the function this
// project was built against, and leaves it alone otherwise: the patch is about
// speed, never about results.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MARKER = 'entityKindsOf';

const ORIGINAL_TAIL = `  let cls = Object.getPrototypeOf(value).constructor;
  if (cls) {
    while (cls) {
      if (entityKind in cls && cls[entityKind] === type[entityKind]) {
        return true;
      }
      cls = Object.getPrototypeOf(cls);
    }
  }
  return false;
}`;

const PATCHED_TAIL = `  const cls = Object.getPrototypeOf(value).constructor;
  return cls ? ${MARKER}(cls).has(type[entityKind]) : false;
}`;

const KINDS = `const entityKindsCache = new WeakMap();
function ${MARKER}(cls) {
  let kinds = entityKindsCache.get(cls);
  if (kinds === undefined) {
    kinds = new Set();
    for (let c = cls; c; c = Object.getPrototypeOf(c)) {
      if (entityKind in c) kinds.add(c[entityKind]);
    }
    entityKindsCache.set(cls, kinds);
  }
  return kinds;
}
function is(value, type) {`;

function patch(source) {
  if (source.includes(MARKER)) return { source, state: 'already patched' };
  if (!source.includes(ORIGINAL_TAIL) || !source.includes('function is(value, type) {')) return { source, state: 'unknown version, left as it is' };
  return { source: source.replace('function is(value, type) {', KINDS).replace(ORIGINAL_TAIL, PATCHED_TAIL), state: 'patched' };
}

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', 'drizzle-orm');
for (const file of ['entity.js', 'entity.cjs']) {
  const path = join(dir, file);
  if (!existsSync(path)) continue;
  const { source, state } = patch(readFileSync(path, 'utf8'));
  if (state === 'patched') writeFileSync(path, source);
  console.log(`drizzle-orm/${file}: ${state}`);
}
