// rbush 4 ships no types (and @types/rbush lags its ESM build): the part of its API we use.
declare module 'rbush' {
  export interface BBox {
    minX: number;
    minY: number;
    maxX: number;
    maxY: number;
  }
  export default class RBush<T extends BBox> {
    constructor(maxEntries?: number);
    insert(item: T): this;
    load(items: readonly T[]): this;
    search(box: BBox): T[];
    all(): T[];
  }
}
