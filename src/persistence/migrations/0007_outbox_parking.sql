-- An event whose subscribers failed every retry is parked: kept for inspection, never replayed at boot.
ALTER TABLE event_outbox ADD COLUMN parked_at INTEGER;
ALTER TABLE event_outbox ADD COLUMN parked_error TEXT;
