// Parcel numbers as the spec writes them (2.3): groups of digits separated by colons,
// `61:02:0600010:123`. Its own module so that forms in the browser check them without zod.
export const PARCEL_NUMBER = /^\d+(:\d+)*$/;
