import type { ListShape } from '../../src/cloud/shapes';
import type { PlainValue } from '../../src/cloud/xml';
import { scanXml } from './xml-scanner';

// A list answer decoded as the client decoded XML before fast-xml-parser: the
// baseline scanner, then the same unwrapping and the same zod schema as the
// client's codec (src/cloud/codec.ts), so that the two differ in the reader alone.

export function decodeListWithScanner(xml: string, shape: ListShape): unknown[] {
  const root = scanXml(xml)[shape.listName];
  if (!Array.isArray(root)) throw new Error(`expected a list of ${shape.itemName}`);
  return root.map((item: PlainValue) => shape.schema.parse(item));
}
