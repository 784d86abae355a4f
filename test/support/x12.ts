import { X12Parser } from "node-x12";

/**
 * Reads an 837P back with node-x12's strict parser (it refuses an SE01 that does not count ST through SE and
 * mismatched control numbers between headers and trailers) and checks the envelope counts and control numbers
 * that the parser does not: GE01 the transaction sets, IEA01 the groups, ISA13 = GS06 padded, ST02 1.. in order,
 * and the fixed width of ISA.
 */
export interface ReadBack {
  interchangeControl: string;
  groupControl: string;
  /** Per set: its segments' tags (ST and SE excluded), each segment's element values in `elements` (the tag excluded). */
  sets: { control: string; segments: string[]; elements: string[][]; count: number }[];
}

export function readBack837(content: string): ReadBack {
  const isa = content.slice(0, content.indexOf("~"));
  if (isa.length !== 105) throw new Error(`ISA is ${isa.length} characters, not 105`);
  const interchange = new X12Parser(true).parse(content) as any;
  const groups = interchange.functionalGroups;
  const iea01 = Number(interchange.trailer.valueOf(1));
  if (iea01 !== groups.length) throw new Error(`IEA01 ${iea01} but ${groups.length} groups`);
  const isa13 = isa.split("*")[13]!;
  if (String(Number(interchange.header.valueOf(13))) !== String(Number(isa13))) throw new Error("ISA13 read differently");
  if (Number(interchange.trailer.valueOf(2)) !== Number(isa13) || !content.trimEnd().endsWith(`IEA*${iea01}*${isa13}~`)) throw new Error("IEA02 differs from ISA13");
  const group = groups[0];
  const gs06 = group.header.valueOf(6);
  if (isa13 !== gs06.padStart(9, "0")) throw new Error(`ISA13 ${isa13} is not GS06 ${gs06} padded`);
  if (group.trailer.valueOf(2) !== gs06) throw new Error("GE02 differs from GS06");
  const ge01 = Number(group.trailer.valueOf(1));
  if (ge01 !== group.transactions.length) throw new Error(`GE01 ${ge01} but ${group.transactions.length} sets`);
  const sets = group.transactions.map((tx: any, i: number) => {
    const control = tx.header.valueOf(2);
    if (control !== String(i + 1).padStart(4, "0")) throw new Error(`ST02 ${control} out of order`);
    if (tx.trailer.valueOf(2) !== control) throw new Error("SE02 differs from ST02");
    const count = Number(tx.trailer.valueOf(1));
    if (count !== tx.segments.length + 2) throw new Error(`SE01 ${count} but ${tx.segments.length + 2} segments`);
    return { control, count, segments: tx.segments.map((s: any) => s.tag), elements: tx.segments.map((s: any) => s.elements.map((e: any) => e.value)) };
  });
  return { interchangeControl: isa13, groupControl: gs06, sets };
}
