export { CONTENT_TYPE, type Family, Histogram, renderFamilies } from './exposition';
export { JOB_DURATION_BUCKETS, LATENESS_BUCKETS, metrics, SlotMetrics } from './slot-metrics';
