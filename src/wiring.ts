import { configureMoves, moveTask } from './platform/d1/workspace-moves/machine';
import { installContactExtensions } from './modules/contacts';
import { registerFactCounter } from './modules/emails';
import { keyedEmailId, keyedEmailIds, keyedEmailsInsert, outboxEntry, recordOutboxEntries } from './modules/sandbox-outbox';
import { manifest as audiences } from './modules/audiences/manifest';
import { manifest as automations } from './modules/automations/manifest';
import { manifest as bookings } from './modules/bookings/manifest';
import { manifest as contacts } from './modules/contacts/manifest';
import { manifest as deals } from './modules/deals/manifest';
import { manifest as emailCampaigns } from './modules/email-campaigns/manifest';
import { manifest as emails } from './modules/emails/manifest';
import { manifest as events } from './modules/events/manifest';
import { manifest as forms } from './modules/forms/manifest';
import { manifest as idempotencyKeys } from './modules/idempotency-keys/manifest';
import { manifest as newsletters } from './modules/newsletters/manifest';
import { manifest as notes } from './modules/notes/manifest';
import { manifest as orders } from './modules/orders/manifest';
import { manifest as paymentRequests } from './modules/payment-requests/manifest';
import { manifest as payments } from './modules/payments/manifest';
import { manifest as pipelines } from './modules/pipelines/manifest';
import { manifest as products } from './modules/products/manifest';
import { manifest as sandboxOutbox } from './modules/sandbox-outbox/manifest';
import { manifest as scoring } from './modules/scoring/manifest';
import { manifest as senderProfiles } from './modules/sender-profiles/manifest';
import { manifest as suppressions } from './modules/suppressions/manifest';
import { manifest as unsubscribe } from './modules/unsubscribe/manifest';
import { manifest as webhooks } from './modules/webhooks/manifest';
import { manifest as whatsapp } from './modules/whatsapp/manifest';
import { wireEventOutbox } from './platform/outbox';
import { wireFeatureGates } from './platform/features';
import { wireSignals } from './platform/signals';
import { composeManifests } from './platform/manifest';
import { wireFileUploads } from './platform/uploads';
import { wireSandboxOutbox } from './providers/sandbox-outbox';
import { queueConsumer } from './queue';
import { shardSweepsTask } from './sweeps/runner';

/**
 * The composition root: every module's manifest, gathered once. `buildApp()` mounts its routes and
 * docs, the Worker's queue and cron handlers run its tasks and sweeps, the operator API names its
 * sweeps; nothing is registered by importing a module.
 *
 * The manifests are listed in the order their `/v1` routers mount, which is the order of the API
 * reference's paths, and their public routes mount in the same order.
 */
export const wiring = composeManifests(
  [
    pipelines,
    contacts,
    notes,
    scoring,
    products,
    deals,
    payments,
    orders,
    paymentRequests,
    webhooks,
    bookings,
    whatsapp,
    emails,
    suppressions,
    audiences,
    senderProfiles,
    emailCampaigns,
    newsletters,
    unsubscribe,
    events,
    idempotencyKeys,
    forms,
    automations,
    sandboxOutbox,
  ],
  {
    // The reference lists the public routes after the API's own operations, in this order.
    docs: [events, paymentRequests, bookings, emails, newsletters, whatsapp],
    // The operator API lists the sweeps in this order (`POST /admin/v1/sweeps/{name}` answers an unknown name with the list).
    sweeps: [bookings, webhooks, payments, paymentRequests, whatsapp, newsletters, idempotencyKeys, suppressions, scoring, contacts, automations],
  },
);

// Platform code, the email module and the providers cannot import the modules that provide these: they are handed in here, once.
wireFeatureGates(wiring.featureGates);
wireFileUploads(wiring.fileUploads);
wireEventOutbox(wiring);
wireSignals(wiring.signals);
wireSandboxOutbox({ keyedEmailsInsert, keyedEmailIds, keyedEmailId, outboxEntry, recordOutboxEntries });
for (const [source, counter] of wiring.emailFactCounters) registerFactCounter(source, counter);
installContactExtensions({ records: wiring.personalData, tagsLinked: wiring.tagsLinked });
configureMoves(wiring.notMoved.keys());

/** The Worker's queue handler: every module's message kinds, and the sweep queue's one message per shard and its workspace moves' steps. */
export const handleQueueBatch = queueConsumer([...wiring.queueTasks, shardSweepsTask(wiring.sweeps), moveTask]);
