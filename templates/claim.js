// The claim page's "Copy and get the app": copies the claim link, then goes to the App Store. Without this file
// (or without clipboard access) the page works the same: the link can be copied by hand.
(function () {
  var button = document.getElementById('copy-and-go');
  if (!button || !navigator.clipboard || !navigator.clipboard.writeText) return;
  button.hidden = false;
  button.addEventListener('click', function () {
    var go = function () { window.location.href = button.getAttribute('data-store'); };
    navigator.clipboard.writeText(button.getAttribute('data-claim')).then(go, go);
  });
})();
