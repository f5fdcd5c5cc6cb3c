/* Cairn maps (Leaflet, served from node_modules): a record's footprint, the footprints of a
 * page of results, and drawing a search box into the bbox field. No base layer and no tiles:
 * footprints are drawn over a graticule, so the page makes no request outside the server. */
/* global L, document, window */
(function () {
  'use strict';
  document.documentElement.classList.add('js');
  var element = document.getElementById('map');
  if (!element || typeof L === 'undefined') return;

  var map = L.map(element, {
    crs: L.CRS.EPSG4326,
    attributionControl: false,
    worldCopyJump: false,
    maxBounds: [
      [-100, -200],
      [100, 200],
    ],
    minZoom: -1,
    zoomSnap: 0.25,
  });

  // Graticule every 30 degrees, with the world's edge drawn a little stronger.
  var grid = { color: '#9fb1c2', weight: 1, opacity: 0.6, interactive: false };
  for (var lon = -180; lon <= 180; lon += 30) {
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
        [lat, -180],
        [lat, 180],
      ],
      grid,
    ).addTo(map);
  }
  L.rectangle(
    [
      [-90, -180],
      [90, 180],
    ],
    { color: '#6b7f93', weight: 1.5, fill: false, interactive: false },
  ).addTo(map);

  var style = { color: '#c0392b', weight: 2, fillOpacity: 0.15 };
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
      extend(layer);
    });
    element.classList.add('has-footprint');
  }

  // The search box: shown from the bbox field, drawn with two clicks on the map.
  var input = element.dataset.bboxInput ? document.getElementById(element.dataset.bboxInput) : null;
  var box = null;
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
        [values[3], values[2]],
      ],
      { color: '#1f5f8b', weight: 2, dashArray: '6 4', fillOpacity: 0.05, interactive: false },
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
        round(clamp(Math.min(first.lng, second.lng), 180)),
        round(clamp(Math.min(first.lat, second.lat), 90)),
        round(clamp(Math.max(first.lng, second.lng), 180)),
        round(clamp(Math.max(first.lat, second.lat), 90)),
      ].join(',');
      setDrawing(false);
      showBox();
    });
    map.on('mousemove', function (event) {
      if (!isDrawing() || !first) return;
      if (box) map.removeLayer(box);
      box = L.rectangle([first, event.latlng], {
        color: '#1f5f8b',
        weight: 2,
        dashArray: '6 4',
        fillOpacity: 0.05,
        interactive: false,
      }).addTo(map);
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
  if (bounds) {
    map.fitBounds(bounds.pad(0.5), { maxZoom: 4 });
  } else {
    map.fitBounds([
      [-90, -180],
      [90, 180],
    ]);
  }
})();
