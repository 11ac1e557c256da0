// report.js: what JavaScript adds to the static page (hover previews, pause all, storyboard scrubber, filters in the URL hash, keys, compare views with synced videos).
enum ReportScript {
    static let fileName = "report.js"

    static let source = #"""
    // clipkit report: adds to a page that reads without it. No eval, no fetch (works from file://).
    (function () {
      'use strict';
      var doc = document;
      var reduce = !!(window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches);
      var paused = false;
      doc.documentElement.classList.add('js');
      function all(selector, root) { return Array.prototype.slice.call((root || doc).querySelectorAll(selector)); }

      // Card previews: the poster, and the animation while hovered or focused.
      all('img.poster[data-anim]').forEach(function (img) {
        var still = img.getAttribute('src');
        var card = img.closest('.card');
        function play() { if (!paused && !reduce) { img.src = img.getAttribute('data-anim'); } }
        function stop() { img.src = still; }
        card.addEventListener('mouseenter', play);
        card.addEventListener('mouseleave', stop);
        card.addEventListener('focusin', play);
        card.addEventListener('focusout', stop);
      });

      // Pause all (WCAG 2.2.2): every animation shows its poster (its picture's reduced-motion source), videos stop.
      var pause = doc.getElementById('pause-all');
      function setPaused(value) {
        paused = value;
        if (pause) { pause.setAttribute('aria-pressed', value ? 'true' : 'false'); }
        all('picture > img.anim').forEach(function (img) {
          var source = img.parentNode.querySelector('source');
          if (!source) { return; }
          if (!img.hasAttribute('data-src')) { img.setAttribute('data-src', img.getAttribute('src')); }
          img.src = value ? source.getAttribute('srcset') : img.getAttribute('data-src');
        });
        all('video').forEach(function (video) { if (value) { video.pause(); } });
      }
      if (pause) { pause.addEventListener('click', function () { setPaused(!paused); }); }

      // Storyboard scrubbers: the cues come from the JSON block after each, never fetched; its
      // tiles name sheets by their order among the scrubber's images. A sheet is loaded only
      // once its scrubber comes near the viewport or is first pointed at or focused: a page of
      // a thousand clips loaded a thousand sheets at once. The tile is as wide as the scrubber
      // (at most the media's width), its aspect ratio kept: the sheet is scaled with it.
      var near = window.IntersectionObserver ? new IntersectionObserver(function (entries) {
        entries.forEach(function (entry) {
          if (entry.isIntersecting) { near.unobserve(entry.target); entry.target.dispatchEvent(new Event('clipkit-near')); }
        });
      }, { rootMargin: '300px 0px' }) : null;
      all('.scrubber').forEach(function (el) {
        var block = el.nextElementSibling;
        if (!block || !block.classList.contains('cues')) { return; }
        var cues = JSON.parse(block.textContent);
        if (!cues.tiles.length) { return; }
        // The sheets' addresses from the <noscript> images (text when script runs: nothing
        // fetched), read through an inert template.
        var sheetURLs = [];
        var noscript = el.querySelector('noscript');
        if (noscript) {
          var inert = doc.createElement('template');
          inert.innerHTML = noscript.textContent;
          sheetURLs = all('img', inert.content).map(function (img) { return new URL(img.getAttribute('src'), doc.baseURI).href; });
        }
        el.tabIndex = 0;
        el.setAttribute('role', 'slider');
        el.setAttribute('aria-label', 'storyboard');
        el.setAttribute('aria-valuemin', '0');
        el.setAttribute('aria-valuemax', String(cues.duration_ms));
        el.style.setProperty('--tile-ratio', String(cues.tile[0] / cues.tile[1]));
        var view = doc.createElement('div');
        view.className = 'tile';
        var bar = doc.createElement('div');
        bar.className = 'bar';
        var knob = doc.createElement('div');
        knob.className = 'knob';
        bar.appendChild(knob);
        el.appendChild(view);
        el.appendChild(bar);
        el.classList.add('live');
        var current = 0;
        var loaded = false;
        // Percentages: the sheet scaled by the tile's scale, whatever width the tile is given.
        function percent(offset, tile, sheet) { return sheet > tile ? 100 * offset / (sheet - tile) : 0; }
        function show(index) {
          current = Math.max(0, Math.min(cues.tiles.length - 1, index));
          var tile = cues.tiles[current];
          if (loaded) {
            var sheet = cues.sheets[tile[2]];
            view.style.backgroundImage = 'url("' + sheetURLs[tile[2]] + '")';
            view.style.backgroundSize = (100 * sheet[0] / cues.tile[0]) + '% ' + (100 * sheet[1] / cues.tile[1]) + '%';
            view.style.backgroundPosition = percent(tile[3], cues.tile[0], sheet[0]) + '% ' + percent(tile[4], cues.tile[1], sheet[1]) + '%';
          }
          knob.style.width = (cues.duration_ms ? 100 * tile[0] / cues.duration_ms : 0) + '%';
          el.setAttribute('data-tile', String(current));
          el.setAttribute('aria-valuenow', String(tile[0]));
          el.setAttribute('aria-valuetext', (tile[0] / 1000).toFixed(2) + ' s');
        }
        function load() {
          if (loaded) { return; }
          loaded = true;
          if (near) { near.unobserve(el); }
          show(current);
        }
        function tileAt(ms) {
          for (var i = 0; i < cues.tiles.length; i++) { if (ms < cues.tiles[i][1]) { return i; } }
          return cues.tiles.length - 1;
        }
        el.addEventListener('clipkit-near', load);
        el.addEventListener('pointerenter', load);
        el.addEventListener('focus', load);
        el.addEventListener('pointermove', function (event) {
          load();
          var box = el.getBoundingClientRect();
          var fraction = Math.max(0, Math.min(1, (event.clientX - box.left) / box.width));
          show(tileAt(fraction * cues.duration_ms));
        });
        el.addEventListener('keydown', function (event) {
          var moves = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
          if (event.key in moves) { show(current + moves[event.key]); }
          else if (event.key === 'Home') { show(0); }
          else if (event.key === 'End') { show(cues.tiles.length - 1); }
          else { return; }
          event.preventDefault();
          event.stopPropagation();
        });
        show(0);
        if (near) { near.observe(el); } else { load(); }
      });

      // Filters: chips (any value within a group, every group) and text, kept in the hash as #f:group=a,b;q=text.
      var nav = doc.getElementById('filters');
      var text = doc.getElementById('filter-text');
      var shown = doc.getElementById('shown');
      var chips = all('.chip');
      // Sections follow their cards (card-N, clip-N): the filter data is written once, on the
      // card, and the name once, in the section's heading.
      var items = all('.card');
      var names = items.map(function (item) {
        var heading = doc.querySelector('#clip-' + item.id.slice(5) + ' > h2');
        return heading ? heading.textContent.replace(/^# /, '').toLowerCase() : '';
      });
      function selected() {
        var groups = {};
        chips.forEach(function (chip) {
          if (chip.getAttribute('aria-pressed') === 'true') {
            var group = chip.getAttribute('data-group');
            (groups[group] = groups[group] || []).push(chip.getAttribute('data-value'));
          }
        });
        return groups;
      }
      function apply() {
        var groups = selected();
        var query = text ? text.value.trim().toLowerCase() : '';
        var count = 0;
        items.forEach(function (item, index) {
          var ok = Object.keys(groups).every(function (group) {
            var values = (item.getAttribute('data-' + group) || '').split(' ');
            return groups[group].some(function (value) { return values.indexOf(value) >= 0; });
          }) && (!query || names[index].indexOf(query) >= 0);
          item.hidden = !ok;
          var section = doc.getElementById('clip-' + item.id.slice(5));
          if (section) { section.hidden = !ok; }
          if (ok) { count++; }
        });
        if (shown) { shown.textContent = count + ' shown'; }
      }
      function writeHash() {
        var groups = selected();
        var parts = Object.keys(groups).sort().map(function (group) { return group + '=' + groups[group].map(encodeURIComponent).join(','); });
        if (text && text.value) { parts.push('q=' + encodeURIComponent(text.value)); }
        var hash = parts.length ? '#f:' + parts.join(';') : '';
        if (hash !== location.hash && (hash || location.hash.indexOf('#f:') === 0)) {
          history.replaceState(null, '', hash || location.pathname + location.search);
        }
      }
      function readHash() {
        if (location.hash.indexOf('#f:') !== 0) { return; }
        var groups = {};
        var query = '';
        location.hash.slice(3).split(';').forEach(function (part) {
          var at = part.indexOf('=');
          if (at < 0) { return; }
          var key = part.slice(0, at);
          var values = part.slice(at + 1).split(',').map(decodeURIComponent);
          if (key === 'q') { query = values.join(','); } else { groups[key] = values; }
        });
        chips.forEach(function (chip) {
          var values = groups[chip.getAttribute('data-group')] || [];
          chip.setAttribute('aria-pressed', values.indexOf(chip.getAttribute('data-value')) >= 0 ? 'true' : 'false');
        });
        if (text) { text.value = query; }
        apply();
      }
      if (nav) { nav.hidden = false; }
      chips.forEach(function (chip) {
        chip.addEventListener('click', function () {
          chip.setAttribute('aria-pressed', chip.getAttribute('aria-pressed') === 'true' ? 'false' : 'true');
          apply();
          writeHash();
        });
      });
      if (text) { text.addEventListener('input', function () { apply(); writeHash(); }); }
      window.addEventListener('hashchange', readHash);
      readHash();
      apply();

      // Compare views: side by side (static), slider, flip.
      all('.compare').forEach(function (box) {
        var after = box.querySelector('.after');
        var controls = doc.createElement('div');
        controls.className = 'compare-controls';
        var slider = doc.createElement('input');
        slider.type = 'range'; slider.min = '0'; slider.max = '100'; slider.value = '50';
        slider.setAttribute('aria-label', 'slider position');
        slider.hidden = true;
        ['side', 'slider', 'flip'].forEach(function (mode) {
          var button = doc.createElement('button');
          button.type = 'button';
          button.textContent = mode === 'side' ? 'Side by side' : mode === 'slider' ? 'Slider' : 'Flip';
          button.addEventListener('click', function () {
            box.setAttribute('data-mode', mode === 'flip' && box.getAttribute('data-mode') === 'flip' ? 'flip-before' : mode);
            slider.hidden = mode !== 'slider';
            after.style.clipPath = mode === 'slider' ? 'inset(0 0 0 ' + slider.value + '%)' : '';
          });
          controls.appendChild(button);
        });
        slider.addEventListener('input', function () { after.style.clipPath = 'inset(0 0 0 ' + slider.value + '%)'; });
        controls.appendChild(slider);
        syncVideos(box, controls);
        box.parentNode.insertBefore(controls, box);
      });

      // The two MP4s of a compare view as one player: this run's leads, the baseline follows its
      // play, pause and seeks, and is pulled back when it drifts; one button and one position.
      function syncVideos(box, controls) {
        var videos = all('video', box);
        if (videos.length !== 2) { return; }
        var follow = videos[0], lead = videos[1];
        videos.forEach(function (video) { video.controls = false; video.loop = false; });
        var play = doc.createElement('button');
        play.type = 'button';
        play.className = 'play';
        play.textContent = 'Play both';
        var seek = doc.createElement('input');
        seek.type = 'range'; seek.min = '0'; seek.max = '1000'; seek.value = '0';
        seek.className = 'seek';
        seek.setAttribute('aria-label', 'position of both videos');
        function duration() { return Math.max(lead.duration || 0, follow.duration || 0); }
        function align() { if (Math.abs(follow.currentTime - lead.currentTime) > 0.05) { follow.currentTime = lead.currentTime; } }
        play.addEventListener('click', function () {
          if (lead.paused) { if (lead.ended) { lead.currentTime = 0; } lead.play(); } else { lead.pause(); }
        });
        lead.addEventListener('play', function () { align(); follow.play(); play.textContent = 'Pause both'; });
        lead.addEventListener('pause', function () { follow.pause(); align(); play.textContent = 'Play both'; });
        lead.addEventListener('seeked', align);
        lead.addEventListener('timeupdate', function () {
          if (!lead.paused) { align(); }
          if (duration()) { seek.value = String(Math.round(1000 * lead.currentTime / duration())); }
        });
        seek.addEventListener('input', function () {
          var time = duration() * seek.value / 1000;
          lead.currentTime = time;
          follow.currentTime = time;
        });
        controls.appendChild(play);
        controls.appendChild(seek);
      }

      // Keys: / filter, j and k next and previous clip (sections made focusable here), ? help.
      var help = doc.getElementById('help');
      all('section.clip').forEach(function (section) { section.tabIndex = -1; });
      doc.addEventListener('keydown', function (event) {
        var target = event.target;
        if (event.ctrlKey || event.metaKey || event.altKey) { return; }
        if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA')) {
          if (event.key === 'Escape') { target.blur(); }
          return;
        }
        var sections = all('section.clip').filter(function (section) { return !section.hidden; });
        if (event.key === '/' && text) { event.preventDefault(); text.focus(); }
        else if (event.key === '?' && help) { help.hidden = !help.hidden; }
        else if ((event.key === 'j' || event.key === 'k') && sections.length) {
          var at = sections.indexOf(doc.activeElement && doc.activeElement.closest ? doc.activeElement.closest('section.clip') : null);
          var next = event.key === 'j' ? (at < 0 ? 0 : Math.min(at + 1, sections.length - 1)) : Math.max(at - 1, 0);
          sections[next].focus();
          sections[next].scrollIntoView({ block: 'start', behavior: reduce ? 'auto' : 'smooth' });
        }
      });
    })();

    """#
}
