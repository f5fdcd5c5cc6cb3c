/* Cairn maps (Leaflet, served from node_modules): a record's footprint, the footprints of a
 * page of results, and drawing a search box into the bbox field. The background is an offline
 * world outline (Natural Earth 1:110m, served by Cairn as world-110m.json) over a graticule, so
 * the page makes no request outside the server; when the operator sets MAP_TILE_URL, tiles from
 * that server replace it. The background sits in its own pane under the footprints. */
/* global L, document, window, fetch */
(function () {
  'use strict';
  document.documentElement.classList.add('js');
  var element = document.getElementById('map');
  if (!element || typeof L === 'undefined') return;

  var tileUrl = element.dataset.tileUrl;
  var map = L.map(element, {
    crs: tileUrl ? L.CRS.EPSG3857 : L.CRS.EPSG4326,
    attributionControl: Boolean(tileUrl),
    worldCopyJump: false,
    minZoom: tileUrl ? 0 : -1,
    zoomSnap: 0.25,
  });
  // A first view, so that every layer below is added to a loaded map (and drawn at once); the
  // view is fitted to the footprints at the end.
  map.setView([0, 0], tileUrl ? 1 : 0);
  // The background pane: above Leaflet's tile pane (200), under the footprints (overlay, 400).
  map.createPane('basemap');
  map.getPane('basemap').style.zIndex = 250;
  map.getPane('basemap').style.pointerEvents = 'none';
  var basemapRenderer = L.svg({ pane: 'basemap' });

  var escapeText = function (text) {
    var span = document.createElement('span');
    span.textContent = text;
    return span.innerHTML;
  };

  if (tileUrl) {
    L.tileLayer(tileUrl, {
      attribution: escapeText(element.dataset.tileAttribution || ''),
      maxZoom: 18,
    }).addTo(map);
  }

  // The graticule (every 30 degrees) and the world outline, once per 360 degrees of longitude
  // shown: a footprint moved east of 180 degrees (across the antimeridian) has land under it.
  var drawBackground = function (offsets, outline) {
    var grid = {
      color: '#9fb1c2',
      weight: 1,
      opacity: 0.6,
      interactive: false,
      pane: 'basemap',
      renderer: basemapRenderer,
    };
    var west = -180 + 360 * Math.min.apply(null, offsets);
    var east = 180 + 360 * Math.max.apply(null, offsets);
    for (var lon = west; lon <= east; lon += 30) {
      L.polyline(
        [
          [-90, lon],
          [90, lon],
        ],
        grid,
      ).addTo(map);
    }
    for (var lat = -90; lat <= 90; lat += 30) {
      L.polyline(
        [
          [lat, west],
          [lat, east],
        ],
        grid,
      ).addTo(map);
    }
    if (!outline) return;
    offsets.forEach(function (offset) {
      L.geoJSON(outline, {
        pane: 'basemap',
        renderer: basemapRenderer,
        interactive: false,
        className: 'basemap-land',
        style: { color: '#8a9a8c', weight: 0.75, fillColor: '#e6e2d3', fillOpacity: 1 },
        coordsToLatLng: function (coords) {
          return L.latLng(coords[1], coords[0] + 360 * offset);
        },
      }).addTo(map);
    });
    element.classList.add('has-basemap');
  };

  var style = { color: '#c0392b', weight: 2, fillOpacity: 0.15 };
  var shapes = [];
  var bounds = null;
  var extend = function (layer) {
    var layerBounds = layer.getBounds();
    if (!layerBounds.isValid()) return;
    bounds = bounds
      ? bounds.extend(layerBounds)
      : L.latLngBounds(layerBounds.getSouthWest(), layerBounds.getNorthEast());
  };

  var parse = function (text) {
    try {
      return JSON.parse(text);
    } catch {
      return null;
    }
  };

  // One record: its footprint.
  var geometry = element.dataset.geometry ? parse(element.dataset.geometry) : null;
  if (geometry) {
    var footprint = L.geoJSON(geometry, { style: style }).addTo(map);
    shapes.push(footprint);
    extend(footprint);
    element.classList.add('has-footprint');
  }

  // A page of results: every footprint, each linking to its record.
  var footprints = element.dataset.footprints ? parse(element.dataset.footprints) : null;
  if (footprints && footprints.length) {
    footprints.forEach(function (item) {
      var layer = L.geoJSON(item.geometry, { style: style }).addTo(map);
      layer.bindTooltip(item.title || item.id);
      layer.on('click', function () {
        window.location.href = item.href;
      });
      shapes.push(layer);
      extend(layer);
    });
    element.classList.add('has-footprint');
  }

  // The search box: shown from the bbox field, drawn with two clicks on the map.
  var input = element.dataset.bboxInput ? document.getElementById(element.dataset.bboxInput) : null;
  var box = null;
  // The search box's look, shared by the box from the field and the one being drawn.
  var boxStyle = {
    color: '#1f5f8b',
    weight: 2,
    dashArray: '6 4',
    className: 'search-box',
    fillOpacity: 0.05,
    interactive: false,
  };
  var showBox = function () {
    if (box) {
      map.removeLayer(box);
      box = null;
    }
    if (!input || !input.value) return;
    var values = input.value.split(',').map(Number);
    if (values.length !== 4 || values.some(isNaN)) return;
    box = L.rectangle(
      [
        [values[1], values[0]],
        // A box across the antimeridian (west > east) is drawn east of 180 degrees.
        [values[3], values[0] > values[2] ? values[2] + 360 : values[2]],
      ],
      boxStyle,
    ).addTo(map);
  };
  if (input) {
    showBox();
    input.addEventListener('change', showBox);
  }

  var drawButton = document.getElementById('draw-bbox');
  var clearButton = document.getElementById('clear-bbox');
  var first = null;
  var round = function (value) {
    return Math.round(value * 10000) / 10000;
  };
  // A longitude clicked on a copy of the world east or west of the usual one, back in range.
  var wrap = function (lon) {
    if (lon >= -180 && lon <= 180) return lon;
    return ((((lon + 180) % 360) + 360) % 360) - 180;
  };
  var clamp = function (value, limit) {
    return Math.max(-limit, Math.min(limit, value));
  };
  var setDrawing = function (drawing) {
    if (!drawButton) return;
    drawButton.setAttribute('aria-pressed', drawing ? 'true' : 'false');
    element.style.cursor = drawing ? 'crosshair' : '';
    first = null;
  };
  var isDrawing = function () {
    return drawButton && drawButton.getAttribute('aria-pressed') === 'true';
  };
  if (drawButton && input) {
    drawButton.addEventListener('click', function () {
      setDrawing(!isDrawing());
    });
    map.on('click', function (event) {
      if (!isDrawing()) return;
      if (!first) {
        first = event.latlng;
        return;
      }
      var second = event.latlng;
      input.value = [
        round(wrap(Math.min(first.lng, second.lng))),
        round(clamp(Math.min(first.lat, second.lat), 90)),
        round(wrap(Math.max(first.lng, second.lng))),
        round(clamp(Math.max(first.lat, second.lat), 90)),
      ].join(',');
      setDrawing(false);
      showBox();
    });
    map.on('mousemove', function (event) {
      if (!isDrawing() || !first) return;
      if (box) map.removeLayer(box);
      box = L.rectangle([first, event.latlng], boxStyle).addTo(map);
    });
  }
  if (clearButton && input) {
    clearButton.addEventListener('click', function () {
      input.value = '';
      setDrawing(false);
      showBox();
    });
  }

  if (box) extend(box);

  // Copies of the world east or west of the usual one, when a footprint reaches there (one
  // moved east of 180 degrees across the antimeridian).
  var offsets = [0];
  if (!tileUrl && bounds && bounds.getEast() > 180) offsets.push(1);
  if (!tileUrl && bounds && bounds.getWest() < -180) offsets.push(-1);
  var world = L.latLngBounds(
    [-90, -180 + 360 * Math.min.apply(null, offsets)],
    [90, 180 + 360 * Math.max.apply(null, offsets)],
  );
  var frame = bounds ? bounds.pad(0.5) : world;
  if (frame.getEast() - frame.getWest() > 360) {
    // Footprints all round the world: the world, and what of them reaches beyond 180 degrees.
    frame = L.latLngBounds(
      [-90, Math.max(-180, bounds.getWest())],
      [90, Math.max(180, bounds.getEast())],
    );
  }
  if (!tileUrl) {
    map.setMaxBounds(world.pad(0.05));
    frame = L.latLngBounds(
      [Math.max(frame.getSouth(), world.getSouth()), Math.max(frame.getWest(), world.getWest())],
      [Math.min(frame.getNorth(), world.getNorth()), Math.min(frame.getEast(), world.getEast())],
    );
  }
  map.fitBounds(frame, { maxZoom: tileUrl ? 10 : 3 });

  // A footprint too small to see at this scale (a point, a small site) gets a ring around it.
  shapes.forEach(function (shape) {
    var shapeBounds = shape.getBounds();
    if (!shapeBounds.isValid()) return;
    var corner = map.latLngToContainerPoint(shapeBounds.getNorthEast());
    var other = map.latLngToContainerPoint(shapeBounds.getSouthWest());
    if (Math.abs(corner.x - other.x) < 8 && Math.abs(corner.y - other.y) < 8) {
      L.circleMarker(shapeBounds.getCenter(), {
        radius: 6,
        color: style.color,
        weight: 2,
        fillOpacity: 0.3,
        interactive: false,
        className: 'footprint-marker',
      }).addTo(map);
    }
  });

  if (!tileUrl) {
    var basemapUrl = element.dataset.basemapUrl;
    if (!basemapUrl || typeof fetch === 'undefined') {
      drawBackground(offsets, null);
    } else {
      fetch(basemapUrl)
        .then(function (response) {
          if (!response.ok) throw new Error('basemap: HTTP ' + response.status);
          return response.json();
        })
        .then(function (outline) {
          drawBackground(offsets, outline);
        })
        .catch(function () {
          drawBackground(offsets, null);
        });
    }
  }
})();
