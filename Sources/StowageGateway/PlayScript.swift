/// `/play.js`, the play page's script (``PlayPage``): picks the audio language (a master narrowed to it) and the
/// subtitles (a `<track>` shown), follows the address's `#autoplay&audio=LANG&subtitles=LANG`, and mirrors what
/// plays onto `<body>`'s `data-` attributes, so a test (or a curious teacher) can read it.
enum PlayScript {
    static let text = """
        (function () {
          var video = document.getElementById('video');
          var body = document.body;
          if (!video) { body.setAttribute('data-state', 'unsupported'); return; }
          if (video.canPlayType('application/vnd.apple.mpegurl') === '') {
            document.getElementById('unsupported').hidden = false;
            body.setAttribute('data-state', 'unsupported');
            return;
          }
          var audio = document.getElementById('audio');
          var subtitles = document.getElementById('subtitles');
          var asked = {};
          location.hash.replace(/^#/, '').split('&').forEach(function (part) {
            var kv = part.split('=');
            if (kv[0]) { asked[decodeURIComponent(kv[0])] = kv.length > 1 ? decodeURIComponent(kv[1]) : 'yes'; }
          });
          function has(select, value) {
            return Array.prototype.some.call(select.options, function (o) { return o.value === value; });
          }
          function source() {
            var option = audio.options[audio.selectedIndex];
            return option ? option.getAttribute('data-src') : video.getAttribute('data-src');
          }
          function showCue(track) {
            var cues = track.activeCues;
            if (cues && cues.length) {
              body.setAttribute('data-cue', cues[0].text);
              body.setAttribute('data-text-track', track.language);
            }
          }
          function chooseSubtitles(lang) {
            body.setAttribute('data-subtitles', lang);
            for (var i = 0; i < video.textTracks.length; i++) {
              var track = video.textTracks[i];
              track.mode = track.language === lang ? 'showing' : 'disabled';
              track.oncuechange = track.language === lang ? function () { showCue(this); } : null;
            }
          }
          function load(at, play) {
            body.setAttribute('data-audio', audio.value || '');
            video.src = source();
            if (at > 0) {
              video.addEventListener('loadedmetadata', function once() {
                video.removeEventListener('loadedmetadata', once);
                video.currentTime = at;
              });
            }
            if (play) {
              var p = video.play();
              if (p && p.catch) { p.catch(function () { body.setAttribute('data-state', 'blocked'); }); }
            }
          }
          if (asked.audio && has(audio, asked.audio)) { audio.value = asked.audio; }
          if (asked.subtitles && has(subtitles, asked.subtitles)) { subtitles.value = asked.subtitles; }
          audio.addEventListener('change', function () { load(video.currentTime, !video.paused); });
          subtitles.addEventListener('change', function () { chooseSubtitles(subtitles.value); });
          video.addEventListener('playing', function () { body.setAttribute('data-state', 'playing'); });
          video.addEventListener('pause', function () { body.setAttribute('data-state', 'paused'); });
          video.addEventListener('ended', function () { body.setAttribute('data-state', 'ended'); });
          video.addEventListener('error', function () {
            body.setAttribute('data-state', 'error');
            body.setAttribute('data-error', video.error ? String(video.error.code) : '');
          });
          ['waiting', 'stalled', 'loadedmetadata', 'canplay', 'seeking', 'seeked'].forEach(function (name) {
            video.addEventListener(name, function () {
              body.setAttribute('data-events', (body.getAttribute('data-events') || '') + ' ' + name + '@' +
                video.currentTime.toFixed(1) + '/' + video.readyState);
            });
          });
          video.addEventListener('timeupdate', function () {
            body.setAttribute('data-current-time', video.currentTime.toFixed(1));
          });
          document.addEventListener('keydown', function (e) {
            var tag = (e.target && e.target.tagName) || '';
            if (tag === 'INPUT' || tag === 'SELECT' || tag === 'BUTTON' || tag === 'A' || tag === 'VIDEO') { return; }
            if (e.key === ' ' || e.key === 'k') {
              e.preventDefault();
              if (video.paused) { video.play(); } else { video.pause(); }
            }
            if (e.key === 'ArrowRight') { video.currentTime += 10; }
            if (e.key === 'ArrowLeft') { video.currentTime = Math.max(0, video.currentTime - 10); }
          });
          chooseSubtitles(subtitles.value);
          load(0, asked.autoplay !== undefined);
        })();
        """
}
