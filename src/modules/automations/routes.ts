import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../platform/context';
import { bearer, defineRoute, jsonBody, jsonContent } from '../../platform/openapi';
import { afterResponse } from '../../platform/after-response';
import { publicBaseUrl } from '../../platform/public-base';
import { createRouter, idParams } from '../../platform/validation';
import { ContactErrors } from '../contacts';
import { ContentErrors } from '../content';
import {
  Automation,
  AutomationCreate,
  AutomationList,
  AutomationListQuery,
  AutomationPatch,
  Enrollment,
  EnrollmentCreate,
  EnrollmentList,
  EnrollmentListQuery,
  EnrollmentWithSteps,
} from './dto';
import { cancelEnrollment, enrollContact, getEnrollment, listEnrollments } from './enrollments';
import { AutomationErrors } from './errors';
import { createAutomation, getAutomation, listAutomations, patchAutomation, type Transition, transitionAutomation } from './service';

export const automationRoutes = createRouter();

const tags = ['Automations'];
/** The lifecycle and cancel routes take no fields: an empty object, or no body. */
const NoFields = z.object({}).strict().openapi('AutomationNoFields');

const id = (c: { req: { valid(target: 'param'): { id: string } } }) => c.req.valid('param').id.toLowerCase();
const DEFINITION_ERRORS = [
  AutomationErrors.invalidDefinition,
  ContentErrors.invalidContent.problems,
  ContentErrors.invalidContent.unnamed,
  ContentErrors.unknownSnippet,
];

const example = {
  name: 'Order thank-you and review request',
  trigger: { event: 'order.paid' },
  steps: [
    { id: 'thank_you', type: 'send_email', subject: 'Thank you, {{first_name}}!', content: { markdown: 'Your order is confirmed.' } },
    { id: 'wait_week', type: 'wait', duration: 'P7D' },
    { id: 'review', type: 'send_email', subject: 'How was it?', content: { markdown: 'Tell us in one click.' } },
  ],
};

automationRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/automations',
    operationId: 'createAutomation',
    tags,
    summary: 'Create an automation',
    description:
      'Created as `draft`, `version: 1`; activate it to enroll contacts. The whole definition is checked at write: every problem answers 400 naming its path.',
    security: bearer,
    request: { body: jsonBody(AutomationCreate, example) },
    responses: { 201: jsonContent(Automation, 'The automation') },
    errors: DEFINITION_ERRORS,
  }),
  async (c) => c.json(await createAutomation(serviceContext(c), c.req.valid('json')), 201),
);

automationRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/automations',
    operationId: 'listAutomations',
    tags,
    summary: 'List automations',
    description: 'Newest first; default 25, at most 100 a page.',
    security: bearer,
    request: { query: AutomationListQuery },
    responses: { 200: jsonContent(AutomationList, 'A page of automations') },
    errors: [AutomationErrors.invalidListFilter],
  }),
  async (c) => c.json(await listAutomations(serviceContext(c), c.req.valid('query')), 200),
);

automationRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/automations/{id}',
    operationId: 'getAutomation',
    tags,
    summary: 'Read an automation',
    description: 'With `stats`: its enrollments by status.',
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(Automation, 'The automation') },
    errors: [AutomationErrors.notFound],
  }),
  async (c) => c.json(await getAutomation(serviceContext(c), id(c)), 200),
);

automationRoutes.openapi(
  defineRoute({
    method: 'patch',
    path: '/automations/{id}',
    operationId: 'updateAutomation',
    tags,
    summary: 'Update an automation',
    description:
      'Any field but `status`. A change to `trigger`, `steps`, `exit_on`, `re_enrollment` or `send_window` raises `version` by 1; a rename does not. ' +
      'Running enrollments keep the version they started on.',
    security: bearer,
    request: { params: idParams, body: jsonBody(AutomationPatch, { name: 'Thank-you series' }) },
    responses: { 200: jsonContent(Automation, 'The automation') },
    errors: [AutomationErrors.notFound, ...DEFINITION_ERRORS],
  }),
  async (c) => c.json(await patchAutomation(serviceContext(c), id(c), c.req.valid('json')), 200),
);

const TRANSITION_DOCS: Record<Transition, { summary: string; description: string }> = {
  activate: { summary: 'Activate an automation', description: '`draft` or `paused` to `active`: from now on its trigger enrolls contacts.' },
  pause: {
    summary: 'Pause an automation',
    description: '`active` to `paused`: no one enrolls (events meanwhile are not replayed later); running enrollments go on.',
  },
  archive: { summary: 'Archive an automation', description: 'Any status to `archived`: running enrollments are cancelled; it never enrolls again.' },
};

for (const action of ['activate', 'pause', 'archive'] as const) {
  automationRoutes.openapi(
    defineRoute({
      method: 'post',
      path: `/automations/{id}/${action}`,
      operationId: `${action}Automation`,
      tags,
      ...TRANSITION_DOCS[action],
      security: bearer,
      request: { params: idParams, body: jsonBody(NoFields, {}) },
      responses: { 200: jsonContent(Automation, 'The automation') },
      errors: [AutomationErrors.notFound, AutomationErrors.invalidTransition],
    }),
    async (c) => c.json(await transitionAutomation(serviceContext(c), c.env, id(c), action, publicBaseUrl(c.env, c.req.url)), 200),
  );
}

automationRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/automations/{id}/enrollments',
    operationId: 'createAutomationEnrollment',
    tags,
    summary: 'Enroll a contact',
    description:
      'A manual enrollment: 409 `automation_not_active` unless the automation is `active`, 409 `enrollment_not_allowed` when `re_enrollment` refuses the contact now ' +
      '(`never`: enrolled before; otherwise: an enrollment of the contact is still running). Parallel calls for one contact make one enrollment.',
    security: bearer,
    request: { params: idParams, body: jsonBody(EnrollmentCreate, { contact_id: '0192f0c1-7a4e-7cc2-9a51-3f1f1c9e2b10' }) },
    responses: { 201: jsonContent(Enrollment, 'The enrollment') },
    errors: [AutomationErrors.notFound, AutomationErrors.notActive, AutomationErrors.enrollmentRefused, ContactErrors.referenceNotFound],
  }),
  async (c) =>
    c.json(await enrollContact(serviceContext(c), c.env, id(c), c.req.valid('json').contact_id.toLowerCase(), afterResponse(c.executionCtx)), 201),
);

automationRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/automations/{id}/enrollments',
    operationId: 'listAutomationEnrollments',
    tags,
    summary: "List an automation's enrollments",
    description: 'Newest first; filters `status` and `contact_id`.',
    security: bearer,
    request: { params: idParams, query: EnrollmentListQuery },
    responses: { 200: jsonContent(EnrollmentList, 'A page of enrollments') },
    errors: [AutomationErrors.notFound, AutomationErrors.invalidListFilter],
  }),
  async (c) => c.json(await listEnrollments(serviceContext(c), id(c), c.req.valid('query')), 200),
);

automationRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/automation-enrollments/{id}',
    operationId: 'getAutomationEnrollment',
    tags,
    summary: 'Read an enrollment',
    description: 'With `steps`: what each step did, in the order run.',
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(EnrollmentWithSteps, 'The enrollment') },
    errors: [AutomationErrors.enrollmentNotFound],
  }),
  async (c) => c.json(await getEnrollment(serviceContext(c), id(c)), 200),
);

automationRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/automation-enrollments/{id}/cancel',
    operationId: 'cancelAutomationEnrollment',
    tags,
    summary: 'Cancel an enrollment',
    description:
      '`status: cancelled`; no further step runs. Cancelling a cancelled enrollment answers it as it is; one that ended otherwise answers 409 `enrollment_ended`.',
    security: bearer,
    request: { params: idParams, body: jsonBody(NoFields, {}) },
    responses: { 200: jsonContent(Enrollment, 'The enrollment') },
    errors: [AutomationErrors.enrollmentNotFound, AutomationErrors.enrollmentEnded],
  }),
  async (c) => c.json(await cancelEnrollment(serviceContext(c), c.env, id(c)), 200),
);
