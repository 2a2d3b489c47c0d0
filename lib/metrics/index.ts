export { type Family, Histogram } from './exposition';
export { type MetricsRegistry, metricsRegistry, PROCESS_METRICS_PREFIX } from './registry';
export { JOB_DURATION_BUCKETS, LATENESS_BUCKETS, metrics, SlotMetrics } from './slot-metrics';
