import { typeidUnboxed } from 'typeid-js';

// TypeIDs (prefix + base32 UUIDv7): time-ordered, so they index and paginate well.
export type IdPrefix =
  | 'org'
  | 'user'
  | 'key'
  | 'deal'
  | 'se'
  | 'de'
  | 'plan'
  | 'pv'
  | 'chip'
  | 'earn'
  | 'wh'
  | 'msg'
  | 'dlv'
  | 'att'
  | 'aud'
  | 'req'
  | 'adm'
  | 'ses'
  | 'sif'
  | 'rmgr'
  | 'idp'
  | 'ssoa'
  | 'rinv'
  | 'rlnk'
  | 'rses'
  | 'apv'
  | 'adj'
  | 'pay'
  | 'sap'
  | 'srm'
  | 'rtk'
  | 'inq'
  | 'inql'
  | 'inqc'
  | 'pac'
  | 'con'
  | 'scn';

/** The same TypeID as `typeid(prefix).toString()`, without building the TypeID object and splitting it again. */
export function newId(prefix: IdPrefix): string {
  return typeidUnboxed(prefix);
}

const ID_PATTERN = /^([a-z]+)_[0-7][0-9a-hjkmnp-tv-z]{25}$/;

export function hasPrefix(id: string, prefix: IdPrefix): boolean {
  return ID_PATTERN.exec(id)?.[1] === prefix;
}
