/**
 * ISO 19139 and ISO 19115-3 share the ISO 19115 model and most of its structure; they differ
 * in namespaces (one `gmd` namespace versus one namespace per package) and in a few shapes
 * (contacts, identifiers, dates of the metadata). A dialect names the package namespaces so the
 * shared reader in iso-reader.ts can address elements the same way in both.
 */
import { namespace, type XmlName } from '../../../xml/index.js';
import { NS } from '../../../xml/namespaces.js';

type NameFactory = (local: string) => XmlName;

/** Namespace factories for the ISO 19115 packages in one XML encoding. */
export interface IsoDialect {
  format: 'iso19139' | 'iso19115-3';
  /** Metadata root level (gmd / mdb). */
  mdb: NameFactory;
  /** Citations and responsible parties (gmd / cit). */
  cit: NameFactory;
  /** Resource identification (gmd / mri). */
  mri: NameFactory;
  /** Common classes: identifiers, scope, browse graphics (gmd / mcc). */
  mcc: NameFactory;
  /** Extents (gmd / gex). */
  gex: NameFactory;
  /** Distribution (gmd / mrd). */
  mrd: NameFactory;
  /** Constraints (gmd / mco). */
  mco: NameFactory;
  /** Content information (gmd+gmi / mrc). */
  mrc: NameFactory;
  /** Acquisition information (gmi / mac). */
  mac: NameFactory;
  /** Service identification (srv). */
  srv: NameFactory;
  /** Lineage (gmd / mrl). */
  mrl: NameFactory;
  /** Locales (gmd / lan). */
  lan: NameFactory;
}

const gmd = namespace(NS.gmd);

/** ISO 19139 (gmd), including ISO 19115-2 (gmi) and service metadata (srv). */
export const ISO19139: IsoDialect = {
  format: 'iso19139',
  mdb: gmd,
  cit: gmd,
  mri: gmd,
  mcc: gmd,
  gex: gmd,
  mrd: gmd,
  mco: gmd,
  mrc: namespace(NS.gmd, NS.gmi),
  mac: namespace(NS.gmi, NS.gmd),
  srv: namespace(NS.srv),
  mrl: gmd,
  lan: gmd,
};

/** ISO 19115-3 (mdb and its packages, in the versions published by ISO). */
export const ISO19115_3: IsoDialect = {
  format: 'iso19115-3',
  mdb: namespace(NS.mdb, NS.mdb1),
  cit: namespace(NS.cit, NS.cit1),
  mri: namespace(NS.mri),
  mcc: namespace(NS.mcc),
  gex: namespace(NS.gex),
  mrd: namespace(NS.mrd),
  mco: namespace(NS.mco),
  mrc: namespace(NS.mrc, NS.mrc1),
  mac: namespace(NS.mac, NS.mac1),
  srv: namespace(NS.srv3, NS.srv3v20),
  mrl: namespace(NS.mrl, NS.mrl1),
  lan: namespace(NS.lan),
};
