// The check a report page gets in the browser test (injected into a copy of
// the page): script errors recorded, every chart drawing something; the
// verdict goes into the body's `data-check`, the bars drawn into `data-bars`.
window.talkforgeErrors = [];
window.addEventListener('error', function (e) { window.talkforgeErrors.push(String(e.message)); });
window.addEventListener('load', function () {
  var problems = window.talkforgeErrors.slice();
  var charts = document.querySelectorAll('svg.chart');
  var visible = function (e) { var b = e.getBBox(); return b.width > 0 || b.height > 0; };
  var count = function (svg, selector, keep) {
    return Array.prototype.filter.call(svg.querySelectorAll(selector), keep).length;
  };
  var bars = 0;
  if (charts.length === 0) { problems.push('no chart'); }
  charts.forEach(function (svg, i) {
    // A chart shows its labels and axes; its bars are counted.
    var texts = count(svg, 'text', function (t) { return t.textContent.trim() !== '' && visible(t); });
    var axes = count(svg, 'line, polyline', visible);
    var shown = count(svg, 'rect', function (r) {
      var b = r.getBBox();
      return (r.getAttribute('fill') || '').toUpperCase() !== '#FFFFFF' && b.width > 0 && b.height > 0;
    });
    if (!(visible(svg) && texts > 0 && axes > 0)) { problems.push('chart ' + i + ' is blank'); }
    bars += shown;
  });
  document.body.dataset.bars = String(bars);
  document.body.dataset.check = problems.length === 0 ? 'ok' : problems.join('; ');
});
