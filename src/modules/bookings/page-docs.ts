import { z } from '@hono/zod-openapi';
import { answer, htmlPage, pathParams, PUBLIC_POST_LIMIT, publicEntry, publicRefusal, type PublicRegistry } from '../../platform/public-docs';

const workspaceAndSlug = pathParams({ ws: 'The workspace id (`workspace_ref` of the embed material)', slug: 'The meeting type slug' });
const workspaceAndToken = pathParams({
  ws: 'The workspace id',
  token: 'The signed manage token from the confirmation, exactly `<booking id>.<signature>` (never in the API or events)',
});

/** The booking page's form, as the page posts it (`application/x-www-form-urlencoded`). */
const BookingForm = z
  .object({
    start_at: z.string().openapi({ format: 'date-time', description: 'The chosen slot (a `start` of the slots listing)' }),
    timezone: z.string().openapi({ description: "The invitee's IANA zone; times on the page and in the mail are shown in it" }),
    name: z.string().openapi({ maxLength: 200 }),
    email: z.string().openapi({ format: 'email' }),
    notes: z.string().optional().openapi({ maxLength: 2000 }),
    embed_key: z.string().optional().openapi({ description: 'The `bk_` key, when the page is embedded' }),
  })
  .openapi('BookingPageForm', {
    example: { start_at: '2030-01-07T09:00:00.000Z', timezone: 'Europe/Berlin', name: 'Ada Lovelace', email: 'ada@example.com' },
  });

const CancelForm = z
  .object({
    confirm: z.literal('yes').optional().openapi({ description: "The confirm step's field: without it the post only shows the confirm step" }),
    reason: z.string().optional().openapi({ maxLength: 1000 }),
  })
  .openapi('BookingCancelForm', { example: { confirm: 'yes', reason: 'Something came up' } });

const RescheduleForm = z
  .object({
    start_at: z.string().openapi({ format: 'date-time', description: 'The new slot (a `start` of the slots listing)' }),
    timezone: z.string().openapi({ description: "The invitee's IANA zone; an unknown one answers the step with an error (400)" }),
  })
  .openapi('BookingRescheduleForm', { example: { start_at: '2030-01-08T10:00:00.000Z', timezone: 'Europe/Berlin' } });

const form = (schema: z.ZodType, required: boolean) => ({ required, content: { 'application/x-www-form-urlencoded': { schema } } });

/** Documents the hosted booking and manage pages in the OpenAPI document, as what they are. */
export function registerBookingPageDocs(registry: PublicRegistry) {
  registry.registerPath({
    ...publicEntry,
    method: 'get',
    path: '/book/{ws}/{slug}',
    operationId: 'getBookingPage',
    summary: 'Hosted booking page (HTML, for the invitee)',
    description:
      "Not an API route: the page `page_url` opens. A select of the runtime's IANA zones, the week of the chosen day (Monday to Sunday, " +
      "previous and next week links, never a day before today) with its days that have open times, the open slots of the chosen day in the invitee's zone, " +
      'and a form for name, email and notes. Works without JavaScript (a small script, allowed by its hash in the Content-Security-Policy, ' +
      "only fills in the browser's zone when `tz` is absent). An unknown `tz` answers 400 with the error on the page and no times. " +
      "With `embed_key` it is the embed's page, the one page any site may frame (`frame-ancestors *`; " +
      "every other page answers `frame-ancestors 'none'` and `X-Frame-Options: DENY`), and it posts its height to the embedding page: a rotated key answers 403.",
    request: {
      params: workspaceAndSlug,
      query: z.object({
        tz: z
          .string()
          .optional()
          .openapi({ description: 'IANA zone to show times in (UTC when absent; an unknown one is a 400 page)', example: 'Europe/Berlin' }),
        day: z.string().optional().openapi({ description: 'The day to show (YYYY-MM-DD in `tz`)', example: '2026-12-01' }),
        embed_key: z.string().optional().openapi({ description: 'The `bk_` key of the embed snippet' }),
      }),
    },
    responses: {
      200: htmlPage('The page'),
      400: htmlPage('An unknown `tz`: the error and the zone select'),
      403: htmlPage('A stale embed key'),
      404: htmlPage('Unknown workspace or meeting type'),
    },
  } as never);
  registry.registerPath({
    ...publicEntry,
    method: 'post',
    path: '/book/{ws}/{slug}',
    operationId: 'bookFromBookingPage',
    summary: 'Book from the hosted page (form post)',
    description:
      'The form of the booking page (`start_at`, `timezone`, `name`, `email`, `notes?`, `embed_key?`): ' +
      'books through the same service as `POST /v1/bookings` (`source` `public_page`, or `embed`) and redirects (303) to the manage page; ' +
      'in the embed (a current `embed_key`) it answers 200, inside the frame, with the booking and a link that opens the manage page in a new tab. ' +
      'A taken slot, an unknown zone or invalid input shows the page again with the reason. ' +
      'Limits: 10 posts a minute per source IP, and 100 bookings an hour per workspace (`rate_limits.bookings_per_hour`); ' +
      'a refused post books and sends nothing.',
    request: { params: workspaceAndSlug, body: form(BookingForm, true) },
    responses: {
      200: htmlPage('Booked in the embed: the booking and a link to its manage page'),
      303: answer('To the manage page of the new booking'),
      400: htmlPage('The page with the reason'),
      403: htmlPage('A stale embed key'),
      404: htmlPage('Unknown workspace or meeting type'),
      409: htmlPage('The page: that time was just taken'),
      429: publicRefusal("More than 10 posts a minute from the source IP, or the workspace's bookings an hour are spent: nothing was booked"),
      503: publicRefusal('The rate limiter cannot be reached: nothing was booked'),
    },
  } as never);
  registry.registerPath({
    ...publicEntry,
    method: 'get',
    path: '/book/{ws}/manage/{token}',
    operationId: 'getBookingManagePage',
    summary: 'Booking manage page (HTML, for the invitee)',
    description:
      'Not an API route: the link of the confirmation email. Shows the booking and, while it is confirmed, "Add to Google Calendar" and "Outlook" links ' +
      '(UTC times) and the two steps: `step=cancel` asks to confirm the cancel, `step=reschedule` shows the open times of the meeting type ' +
      "with the booking page's zone select and week strip (`tz`, `day`). A cancelled booking links to the meeting type's booking page.",
    request: {
      params: workspaceAndToken,
      query: z.object({
        step: z.enum(['cancel', 'reschedule']).optional().openapi({ description: 'The second step to show' }),
        tz: z.string().optional().openapi({ description: 'Reschedule step: the IANA zone to show times in' }),
        day: z.string().optional().openapi({ description: 'Reschedule step: the day to show (YYYY-MM-DD in `tz`)' }),
      }),
    },
    responses: { 200: htmlPage('The page'), 404: htmlPage('Unknown or altered token') },
  } as never);
  registry.registerPath({
    ...publicEntry,
    method: 'post',
    path: '/book/{ws}/manage/{token}/cancel',
    operationId: 'cancelFromBookingManagePage',
    summary: 'Cancel from the manage page (form post)',
    description:
      "With `confirm=yes` (the confirm step's form) cancels the booking as the invitee (`cancelled_by: invitee`, optional `reason`), like `POST /v1/bookings/{id}/cancel`, " +
      'and redirects (303) back to the manage page; without it answers the confirm step and changes nothing.',
    request: { params: workspaceAndToken, body: form(CancelForm, false) },
    responses: {
      200: htmlPage('No `confirm`: the confirm step'),
      303: answer('Back to the manage page'),
      404: htmlPage('Unknown or altered token'),
      429: publicRefusal(PUBLIC_POST_LIMIT),
    },
  } as never);
  registry.registerPath({
    ...publicEntry,
    method: 'post',
    path: '/book/{ws}/manage/{token}/reschedule',
    operationId: 'rescheduleFromBookingManagePage',
    summary: 'Reschedule from the manage page (form post)',
    description:
      'Moves the booking to `start_at` through the same service, rules and slot locks as `POST /v1/bookings/{id}/reschedule` (the same hosts; ' +
      "the invitee's zone becomes `timezone`) and redirects (303) to the manage page, whose link keeps working. " +
      'A taken time (409), an unknown zone or a missing time (400) answers the reschedule step with the reason.',
    request: { params: workspaceAndToken, body: form(RescheduleForm, true) },
    responses: {
      303: answer('To the manage page, showing the new time'),
      400: htmlPage('The reschedule step with the reason'),
      404: htmlPage('Unknown or altered token'),
      409: htmlPage('The reschedule step: that time was taken'),
      429: publicRefusal(PUBLIC_POST_LIMIT),
    },
  } as never);
  registry.registerPath({
    ...publicEntry,
    method: 'get',
    path: '/book/embed.js',
    operationId: 'getBookingEmbedScript',
    summary: 'The embed script of `snippet_html`',
    description:
      "Turns each `[data-booking-embed]` element of the host page into an iframe of the booking page, with the `bk_` key and the browser's zone, " +
      "and sets each iframe's height from the page's `{type: 'booking-embed:height', height}` messages (only from this service's origin and that iframe's window).",
    responses: { 200: answer('JavaScript', { content: { 'text/javascript': { schema: z.string() } } }) },
  } as never);
}
