/**
 * A deterministic generator of realistic OGC API – Records GeoJSON records, for sample data,
 * tests and benchmarks. The same seed and index always give the same record, so a corpus of
 * any size can be rebuilt exactly.
 */

type Feature = Record<string, unknown>;

/** mulberry32: a small, fast, well-distributed 32-bit PRNG. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SUBJECTS = [
  ['Land cover', ['land cover', 'land use', 'vegetation'], 'environment'],
  ['Sea surface temperature', ['ocean', 'temperature', 'climate'], 'oceans'],
  ['Digital elevation model', ['elevation', 'terrain', 'topography'], 'elevation'],
  ['River network', ['hydrography', 'rivers', 'water'], 'inlandWaters'],
  [
    'Orthophoto mosaic',
    ['orthoimagery', 'aerial photography', 'imagery'],
    'imageryBaseMapsEarthCover',
  ],
  ['Soil moisture', ['soil', 'moisture', 'agriculture'], 'farming'],
  ['Coastal flood risk', ['flood', 'coast', 'hazard'], 'environment'],
  [
    'Air quality observations',
    ['air quality', 'pollution', 'atmosphere'],
    'climatologyMeteorologyAtmosphere',
  ],
  ['Road network', ['transport', 'roads', 'infrastructure'], 'transportation'],
  ['Protected areas', ['biodiversity', 'conservation', 'habitats'], 'biota'],
  ['Population density grid', ['population', 'demography', 'settlements'], 'society'],
  ['Geological map', ['geology', 'lithology', 'bedrock'], 'geoscientificInformation'],
  ['Sea ice concentration', ['sea ice', 'polar', 'cryosphere'], 'oceans'],
  ['Bathymetry survey', ['bathymetry', 'seabed', 'depth'], 'oceans'],
  ['Building footprints', ['buildings', 'cadastre', 'urban'], 'structure'],
] as const;

/** Regions with a representative box [west, south, east, north]; some cross the antimeridian. */
const REGIONS: [string, [number, number, number, number]][] = [
  ['the Alps', [5.5, 44.0, 16.5, 48.5]],
  ['the North Sea', [-4.0, 51.0, 9.0, 61.0]],
  ['the Iberian Peninsula', [-9.5, 36.0, 3.3, 43.8]],
  ['the Nile delta', [29.5, 30.0, 32.5, 31.6]],
  ['the Amazon basin', [-74.0, -16.0, -48.0, 5.0]],
  ['the Great Lakes', [-92.5, 41.0, -76.0, 49.5]],
  ['the Bay of Bengal', [80.0, 5.0, 95.0, 22.5]],
  ['the Murray–Darling basin', [138.5, -38.0, 152.5, -24.5]],
  ['Fiji and Tonga', [176.0, -22.5, -173.0, -15.0]],
  ['the Bering Strait', [168.0, 62.0, -166.0, 68.0]],
  ['Kamchatka and the Aleutians', [155.0, 50.0, -170.0, 62.0]],
  ['Iceland', [-24.5, 63.3, -13.5, 66.6]],
  ['the Sahel', [-17.0, 12.0, 38.0, 18.0]],
  ['the Mekong delta', [104.5, 8.5, 106.8, 11.0]],
  ['the Antarctic Peninsula', [-75.0, -75.0, -55.0, -60.0]],
  ['New Zealand', [166.0, -47.5, 178.6, -34.0]],
  ['the Rhine catchment', [5.9, 46.4, 11.0, 52.0]],
  ['Patagonia', [-75.5, -55.0, -63.0, -39.0]],
];

const ORGANISATIONS = [
  'National Mapping Agency',
  'Institute for Marine Research',
  'Environment Agency',
  'Geological Survey',
  'Space Agency Data Centre',
  'University Remote Sensing Lab',
  'Meteorological Office',
];

const PLATFORMS = [
  ['Sentinel-2A', 'MSI', 'OPTICAL'],
  ['Sentinel-2B', 'MSI', 'OPTICAL'],
  ['Sentinel-1A', 'C-SAR', 'RADAR'],
  ['Landsat-8', 'OLI', 'OPTICAL'],
  ['Landsat-9', 'OLI-2', 'OPTICAL'],
] as const;

const TYPES = ['dataset', 'dataset', 'dataset', 'series', 'service'] as const;
const LICENSES = ['CC-BY-4.0', 'CC0-1.0', 'ODbL-1.0', 'other'];
const ADJECTIVES = [
  'Annual',
  'Monthly',
  'High-resolution',
  'Provisional',
  'Harmonised',
  'Gridded',
  'Historical',
];

function pick<T>(random: () => number, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error('pick: no items');
  return item;
}

function round(value: number, digits = 4): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function isoDay(year: number, dayOfYear: number): string {
  return new Date(Date.UTC(year, 0, 1 + dayOfYear)).toISOString().slice(0, 10);
}

/** A sub-box of a region, keeping antimeridian crossing where the region has it. */
function subBox(
  random: () => number,
  [west, south, east, north]: [number, number, number, number],
): [number, number, number, number] {
  const width = (east >= west ? east - west : east + 360 - west) * (0.1 + random() * 0.6);
  const height = (north - south) * (0.1 + random() * 0.6);
  const span = east >= west ? east - west : east + 360 - west;
  let w = west + random() * (span - width);
  const s = south + random() * (north - south - height);
  let e = w + width;
  if (w > 180) w -= 360;
  if (e > 180) e -= 360;
  let [roundedWest, roundedEast] = [round(w), round(e)];
  // A box that begins or ends on the antimeridian once rounded does not cross it: written as
  // crossing, one half of its footprint would have no width, which engines refuse as a shape.
  if (roundedWest === 180 && roundedEast < roundedWest) roundedWest = -180;
  if (roundedEast === -180 && roundedWest > roundedEast) roundedEast = 180;
  return [roundedWest, round(s), roundedEast, round(s + height)];
}

function polygonOf([w, s, e, n]: [number, number, number, number]): Record<string, unknown> {
  if (w <= e) {
    return {
      type: 'Polygon',
      coordinates: [
        [
          [w, s],
          [e, s],
          [e, n],
          [w, n],
          [w, s],
        ],
      ],
    };
  }
  return {
    type: 'MultiPolygon',
    coordinates: [
      [
        [
          [w, s],
          [180, s],
          [180, n],
          [w, n],
          [w, s],
        ],
      ],
      [
        [
          [-180, s],
          [e, s],
          [e, n],
          [-180, n],
          [-180, s],
        ],
      ],
    ],
  };
}

/** Builds record number `index` of the corpus with the given seed. */
export function generateRecord(index: number, seed = 42): Feature {
  const random = createRandom(seed * 1_000_003 + index);
  const [subject, keywords, topic] = pick(random, SUBJECTS);
  const [region, regionBox] = pick(random, REGIONS);
  const adjective = pick(random, ADJECTIVES);
  const year = 1990 + Math.floor(random() * 35);
  const organisation = pick(random, ORGANISATIONS);
  const isEo = random() < 0.3;
  const type = isEo ? 'dataset' : pick(random, TYPES);
  const id = `cairn-${seed}-${String(index).padStart(7, '0')}`;

  const box = random() < 0.05 ? undefined : subBox(random, regionBox);
  const startDay = Math.floor(random() * 300);
  const timeRoll = random();
  const time =
    timeRoll < 0.05
      ? null
      : timeRoll < 0.45
        ? { date: isoDay(year, startDay) }
        : timeRoll < 0.9
          ? {
              interval: [
                isoDay(year, startDay),
                isoDay(year + Math.floor(random() * 5), 330 + Math.floor(random() * 30)),
              ],
            }
          : { interval: [`${isoDay(year, startDay)}T00:00:00Z`, '..'] };

  const properties: Record<string, unknown> = {
    type,
    title: `${adjective} ${subject.toLowerCase()} of ${region}, ${year}`,
    description:
      `${subject} for ${region} compiled by the ${organisation} in ${year}. ` +
      `The ${type} covers ${keywords.join(', ')} and is maintained for regional planning and research.`,
    keywords: [...keywords, region.replace(/^the /, '')],
    themes: [
      {
        scheme:
          'https://standards.iso.org/iso/19115/resources/Codelists/cat/codelists.xml#MD_TopicCategoryCode',
        concepts: [{ id: topic }],
      },
    ],
    contacts: [{ organization: organisation, roles: ['pointOfContact'] }],
    formats: [{ name: pick(random, ['GeoTIFF', 'NetCDF', 'GeoPackage', 'Shapefile', 'COG']) }],
    language: { code: pick(random, ['en', 'en', 'fr', 'de', 'es']) },
    license: pick(random, LICENSES),
    created: `${isoDay(2000 + Math.floor(random() * 24), Math.floor(random() * 360))}T00:00:00Z`,
    updated: `${isoDay(2024, Math.floor(random() * 360))}T12:00:00Z`,
  };
  if (isEo) {
    const [platform, instrument, sensorType] = pick(random, PLATFORMS);
    Object.assign(properties, {
      platform,
      instrument,
      sensorType,
      cloudCover: sensorType === 'RADAR' ? undefined : round(random() * 100, 1),
      orbitNumber: 1000 + Math.floor(random() * 40000),
      orbitDirection: random() < 0.5 ? 'ASCENDING' : 'DESCENDING',
      processingLevel: pick(random, ['L1C', 'L2A', 'L1T']),
      productType: pick(random, ['S2MSI1C', 'S2MSI2A', 'GRD', 'L1TP']),
    });
  }
  return {
    type: 'Feature',
    id,
    conformsTo: ['http://www.opengis.net/spec/ogcapi-records-1/1.0/req/record-core'],
    time,
    geometry: box ? polygonOf(box) : null,
    ...(box && { bbox: box }),
    properties,
    links: [
      {
        rel: 'describedby',
        type: 'text/html',
        href: `https://data.example.org/${id}`,
        title: 'Landing page',
      },
      {
        rel: 'enclosure',
        type: 'image/tiff; application=geotiff',
        href: `https://data.example.org/${id}.tif`,
        title: 'Download',
      },
    ],
  };
}

/** Yields `count` records starting at `from`. */
export function* generateRecords(count: number, seed = 42, from = 0): Generator<Feature> {
  for (let index = from; index < from + count; index += 1) yield generateRecord(index, seed);
}
