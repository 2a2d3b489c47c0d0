export { type Family, Histogram, type HistogramSample, type Sample } from './exposition';
export { JOB_DURATION_BUCKETS, LATENESS_BUCKETS, metrics, SlotMetrics } from './slot-metrics';
