// Leaflet-Geoman extends the global `L`: this module, imported before it, provides that global.
import L from 'leaflet';

if (typeof window !== 'undefined') (window as unknown as { L: typeof L }).L = L;

export default L;
