// Every route of the service and the minimum role it needs (spec 5.2-5.3). `public` routes need no
// session. A test walks app/ and fails when a route handler is missing from this table.
import type { Role } from './roles';

export type Access = Role | 'public';

/** Spec 5.3, as actions. */
export const ACTION_ROLE = {
  viewFields: 'viewer',
  addFields: 'operator',
  edit: 'operator',
  deleteFields: 'admin',
  exportMaps: 'operator',
  uploadScans: 'operator',
  manageUsers: 'admin',
  companySettings: 'admin',
  deleteCompany: 'owner',
} as const satisfies Record<string, Role>;

export const ROUTES = {
  'GET /api/health': 'public',
  // Answers only when SERVICE_ENV=test.
  'POST /api/diagnostics/upload': 'viewer',
  'POST /api/auth/register': 'public',
  'POST /api/auth/login': 'public',
  'POST /api/auth/logout': 'viewer',
  'GET /api/auth/profile': 'viewer',
  'PUT /api/auth/profile': 'viewer',
  'GET /api/auth/company': 'viewer',
  'PUT /api/auth/company': ACTION_ROLE.companySettings,
  'DELETE /api/auth/company': ACTION_ROLE.deleteCompany,
  'GET /api/auth/company/users': ACTION_ROLE.manageUsers,
  'POST /api/auth/company/users': ACTION_ROLE.manageUsers,
  'PUT /api/auth/company/users/{id}': ACTION_ROLE.manageUsers,
  'DELETE /api/auth/company/users/{id}': ACTION_ROLE.manageUsers,
  'GET /api/fields': ACTION_ROLE.viewFields,
  'POST /api/fields': ACTION_ROLE.addFields,
  'GET /api/fields/{id}': ACTION_ROLE.viewFields,
  'PUT /api/fields/{id}': ACTION_ROLE.edit,
  // Many fields' owner or status at once: editing, field by field.
  'PATCH /api/fields': ACTION_ROLE.edit,
  // Cutting a field along a line redraws boundaries and removes nothing: editing.
  'POST /api/fields/{id}/split': ACTION_ROLE.edit,
  // Taking a merged parcel back out makes a field again and removes nothing: editing, as a cut.
  'POST /api/fields/{id}/unmerge': ACTION_ROLE.edit,
  'DELETE /api/fields/{id}': ACTION_ROLE.deleteFields,
  // Merging removes the fields taken in: as destructive as deleting them.
  'POST /api/fields/merge': ACTION_ROLE.deleteFields,
  'GET /api/owners': ACTION_ROLE.viewFields,
  'POST /api/owners': ACTION_ROLE.edit,
  'PUT /api/owners/{id}': ACTION_ROLE.edit,
  // Removing an owner changes many fields at once: as destructive as deleting fields.
  'DELETE /api/owners/{id}': ACTION_ROLE.deleteFields,
  'GET /api/stats': ACTION_ROLE.viewFields,
  'POST /upload': ACTION_ROLE.uploadScans,
  // The company's recent tasks: who uploaded what, and how it went; for everyone who sees the fields.
  'GET /api/tasks': ACTION_ROLE.viewFields,
  'GET /api/tasks/{task_id}': ACTION_ROLE.viewFields,
  'GET /api/fields/{id}/scans': ACTION_ROLE.viewFields,
  'GET /api/scans/{id}': ACTION_ROLE.viewFields,
  'GET /api/scans/{id}/preview.png': ACTION_ROLE.viewFields,
  // Map tiles of a scan's mosaic or index: seeing the scan, as its preview.
  'GET /api/scans/{id}/tiles/{layer}/{z}/{x}/{y}': ACTION_ROLE.viewFields,
  // Naming a scan's crop corrects data, as editing a field does.
  'PUT /api/scans/{id}': ACTION_ROLE.edit,
  // Zones made again from the scan's own raster: processing data, as uploading it is.
  'POST /api/scans/{id}/zones': ACTION_ROLE.uploadScans,
  // A scan is data someone uploaded: removing it is like deleting a field.
  'DELETE /api/scans/{id}': ACTION_ROLE.deleteFields,
  'GET /api/field/export/kmz/{id}': ACTION_ROLE.exportMaps,
  'GET /api/field/export/kmz/all': ACTION_ROLE.exportMaps,
  // The plan the KMZ would hold, drawn before it is downloaded: as the KMZ itself.
  'GET /api/field/export/kmz/{id}/preview': ACTION_ROLE.exportMaps,
  'GET /api/field/export/isoxml/{id}': ACTION_ROLE.exportMaps,
  'GET /api/scan/{scan_id}/export/isoxml': ACTION_ROLE.exportMaps,
  'GET /api/field/export/pdf/{id}': ACTION_ROLE.exportMaps,
  'GET /api/scan/{scan_id}/export/pdf': ACTION_ROLE.exportMaps,
  'GET /api/scan/{scan_id}/export/orthomosaic': ACTION_ROLE.exportMaps,
  'GET /api/scan/{scan_id}/export/index': ACTION_ROLE.exportMaps,
  'POST /api/drone/upload': ACTION_ROLE.uploadScans,
  'GET /api/drone/orthomosaic/status/{task_id}': ACTION_ROLE.viewFields,
  'GET /api/scan/{scan_id}/classify': ACTION_ROLE.viewFields,
} as const satisfies Record<string, Access>;

export type RouteKey = keyof typeof ROUTES;
