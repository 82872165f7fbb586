-- The W3C traceparent of a wakeup's enqueue span, written with the row only while tracing is on
-- (OTEL_EXPORTER_OTLP_ENDPOINT set): whichever process claims and runs the wakeup continues its trace
-- from here. NULL with tracing off, and for every wakeup written before.
ALTER TABLE agent_wakeup_requests ADD COLUMN trace_context TEXT;
