// Importing a module's sweep file registers it (see ./registry).
import '../modules/webhooks/sweep';
import '../modules/payments/sweep';
import '../modules/payment-requests/sweep';
import '../modules/bookings/sweep';
import '../modules/whatsapp/sweep';
import '../modules/newsletters/sweep';
import '../modules/email-campaigns/sweep';
import '../modules/idempotency-keys/sweep';
import '../modules/suppressions/sweep';
