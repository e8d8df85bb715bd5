/**
 * The `{vendor}` path segment and the XML namespaces that go with it (docs/audit-api.md). With the
 * setting `auditApi.vendor` = `netwrix`, the netwrix namespaces (docs/audit-api.md) are written and
 * expected, so its clients run unchanged; any other vendor segment uses Vigil's.
 */

export interface VendorProfile {
  vendor: string;
  /** Namespace of ActivityRecordList, ActivityRecordSearch and ContinuationMark. */
  recordsNamespace: string;
  /** Namespace of ErrorList. */
  errorsNamespace: string;
}

export const VIGIL_RECORDS_NAMESPACE = 'http://schemas.vigil.dev/api/v1/activity_records/';
export const VIGIL_ERRORS_NAMESPACE = 'http://schemas.vigil.dev/api/v1/';
export const NETWRIX_RECORDS_NAMESPACE = 'http://schemas.netwrix.com/api/v1/activity_records/';
export const NETWRIX_ERRORS_NAMESPACE = 'http://schemas.netwrix.com/api/v1/';

export function vendorProfile(vendor: string): VendorProfile {
  return vendor === 'netwrix'
    ? { vendor, recordsNamespace: NETWRIX_RECORDS_NAMESPACE, errorsNamespace: NETWRIX_ERRORS_NAMESPACE }
    : { vendor, recordsNamespace: VIGIL_RECORDS_NAMESPACE, errorsNamespace: VIGIL_ERRORS_NAMESPACE };
}
