-- A ledger refund entry applies itself: inserting it grows its charge's `refunded_cents`, or
-- fails on that column's NOT NULL when the charge is not completed or would give back more
-- than it recognized (so no refund, however written and however many run in parallel, can
-- over-refund), and cancels a one-time payment whose charge it exhausts. Both stamp the
-- refund's `created_at`. One statement instead of three in every refund's batch.
CREATE TRIGGER `payment_entries_refund_applies` AFTER INSERT ON `payment_entries`
WHEN new.kind = 'refund' AND new.refunds_entry_id IS NOT NULL BEGIN
  UPDATE payment_entries
    SET refunded_cents = CASE WHEN status = 'completed' AND refunded_cents - new.amount_cents <= recognized_cents THEN refunded_cents - new.amount_cents ELSE NULL END,
        updated_at = new.created_at
    WHERE id = new.refunds_entry_id AND workspace_id = new.workspace_id;
  UPDATE payments
    SET arrangement_status = CASE WHEN type = 'one_time' AND (SELECT refunded_cents >= recognized_cents FROM payment_entries WHERE id = new.refunds_entry_id) THEN 'cancelled' ELSE arrangement_status END,
        updated_at = new.created_at
    WHERE id = new.payment_id AND workspace_id = new.workspace_id;
END;
