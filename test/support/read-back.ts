import { ROUTES, type RouteCase } from './routes';

const segments = (path: string) => path.split('?')[0].split('/');

/**
 * The GET routes that show what a write touched, as concrete paths: every GET
 * of the route table whose path is a leading part of the write's path
 * (`GET /v1/contacts` and `GET /v1/contacts/{id}` after `PATCH
 * /v1/contacts/{id}`), and after a create the new record's own GET
 * (`GET /v1/contacts/{id}` with the created id after `POST /v1/contacts`).
 * Placeholders take the values the write was sent with.
 */
export function readBackPaths(route: RouteCase, sentPath: string, createdId?: string): string[] {
  const template = segments(route.path);
  const sent = segments(sentPath);
  const out: string[] = [];
  for (const read of ROUTES) {
    if (read.method !== 'GET') continue;
    const parts = segments(read.path);
    const leading = parts.every((p, i) => i < template.length && p === template[i]);
    if (leading) out.push(sent.slice(0, parts.length).join('/'));
    const ownGet = route.method === 'POST' && createdId !== undefined && parts.length === template.length + 1 && /^\{[^}]+\}$/.test(parts.at(-1)!);
    if (ownGet && parts.slice(0, -1).every((p, i) => p === template[i]))
      out.push([...sent.slice(0, template.length), encodeURIComponent(createdId)].join('/'));
  }
  return out;
}
