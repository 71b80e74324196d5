/* torchdeck's web course: night mode from the system's colour scheme (card.css's .nightMode), answers
   checked in the page and kept in this browser (localStorage), progress counted from them. No network. */
(function () {
  "use strict";
  var root = document.documentElement;
  var dark = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  function applyScheme() { root.classList.toggle("nightMode", Boolean(dark && dark.matches)); }
  applyScheme();
  if (dark && dark.addEventListener) { dark.addEventListener("change", applyScheme); }

  var prefix = "torchdeck:" + root.lang + ":";
  function load(key) {
    try { var value = window.localStorage.getItem(prefix + key); return value === null ? null : JSON.parse(value); }
    catch (e) { return null; }
  }
  function save(key, value) { try { window.localStorage.setItem(prefix + key, JSON.stringify(value)); } catch (e) { /* kept for this visit only */ } }
  function forget(key) { try { window.localStorage.removeItem(prefix + key); } catch (e) { /* nothing kept */ } }
  function each(scope, selector, visit) { Array.prototype.forEach.call(scope.querySelectorAll(selector), visit); }
  function button(section, name) { return section.querySelector(".actions ." + name); }

  // ------------------------------------------------------------------ questions
  // An option is a button (one answer) or a box to tick (several): ``mark`` shows it picked or not, and a box
  // answered is locked (a button answered does nothing until "try again").
  function mark(option, picked, answered) {
    var box = option.querySelector("input");
    if (box) { box.checked = picked; box.disabled = answered; }
    else { option.querySelector("button.choice").setAttribute("aria-pressed", picked ? "true" : "false"); }
  }

  function reveal(section, chosen) {
    var right = true;
    each(section, ".option", function (option, index) {
      var picked = chosen.indexOf(index) >= 0;
      var correct = option.getAttribute("data-correct") === "true";
      mark(option, picked, true);
      option.classList.toggle("picked", picked);
      option.classList.add(correct ? "correct" : "wrong");
      option.querySelector(".why").hidden = false;
      if (picked !== correct) { right = false; }
    });
    var result = section.querySelector(".result");
    result.textContent = result.getAttribute(right ? "data-right" : "data-wrong");
    result.className = "result " + (right ? "right" : "wrong");
    section.classList.add("answered");
    if (button(section, "check")) { button(section, "check").hidden = true; }
    button(section, "again").hidden = false;
  }

  function reset(section) {
    each(section, ".option", function (option) {
      mark(option, false, false);
      option.classList.remove("picked", "correct", "wrong");
      option.querySelector(".why").hidden = true;
    });
    var result = section.querySelector(".result");
    result.textContent = "";
    result.className = "result";
    section.classList.remove("answered");
    if (button(section, "check")) { button(section, "check").hidden = false; }
    button(section, "again").hidden = true;
  }

  function chosenIn(section) {
    var chosen = [];
    each(section, ".option input", function (input, index) { if (input.checked) { chosen.push(index); } });
    return chosen;
  }

  function setUpQuestion(section) {
    var key = "q:" + section.getAttribute("data-question");
    var check = button(section, "check");
    if (check) {
      check.addEventListener("click", function () {
        var chosen = chosenIn(section);
        if (chosen.length) { save(key, chosen); reveal(section, chosen); countProgress(); }
      });
    } else {
      each(section, ".option button.choice", function (choice, index) {
        choice.addEventListener("click", function () {
          if (section.classList.contains("answered")) { return; }
          save(key, [index]);
          reveal(section, [index]);
          countProgress();
        });
      });
    }
    button(section, "again").addEventListener("click", function () { forget(key); reset(section); countProgress(); });
    var saved = load(key);
    if (saved && saved.length) { reveal(section, saved); }
  }

  // ------------------------------------------------------------------ games
  function judge(game, picks) {
    var right = 0, total = 0;
    each(game, ".pick", function (pick, index) {
      var select = pick.querySelector("select");
      var verdict = pick.querySelector(".verdict");
      var good = picks[index] === pick.getAttribute("data-answer");
      select.value = picks[index] || "";
      total += 1;
      if (good) { right += 1; }
      verdict.textContent = verdict.getAttribute(good ? "data-right" : "data-wrong");
      verdict.className = "verdict " + (good ? "right" : "wrong");
      verdict.hidden = false;
    });
    var result = game.querySelector(".result");
    result.textContent = result.getAttribute("data-template").replace("{right}", right).replace("{total}", total);
    button(game, "check").hidden = true;
    button(game, "again").hidden = false;
  }

  function setUpGame(game) {
    var key = "g:" + game.getAttribute("data-game");
    button(game, "check").addEventListener("click", function () {
      var picks = [];
      each(game, ".pick select", function (select) { picks.push(select.value); });
      save(key, picks);
      judge(game, picks);
    });
    button(game, "again").addEventListener("click", function () {
      forget(key);
      each(game, ".pick select", function (select) { select.value = ""; });
      each(game, ".pick .verdict", function (verdict) { verdict.hidden = true; verdict.textContent = ""; });
      game.querySelector(".result").textContent = "";
      button(game, "check").hidden = false;
      button(game, "again").hidden = true;
    });
    var saved = load(key);
    if (saved) { judge(game, saved); }
  }

  // ------------------------------------------------------------------ progress
  function countProgress() {
    each(document, ".progress", function (shown) {
      var ids = shown.getAttribute("data-questions").split(" ").filter(Boolean);
      var done = ids.filter(function (id) { return load("q:" + id) !== null; }).length;
      shown.textContent = ids.length ? shown.getAttribute("data-template").replace("{done}", done).replace("{total}", ids.length)
        : shown.getAttribute("data-none");
    });
  }

  function forgetAll() {
    try {
      var keys = [];
      for (var i = 0; i < window.localStorage.length; i += 1) { keys.push(window.localStorage.key(i)); }
      keys.forEach(function (key) { if (key.indexOf(prefix) === 0) { window.localStorage.removeItem(key); } });
    } catch (e) { /* nothing kept */ }
    countProgress();
  }

  document.addEventListener("DOMContentLoaded", function () {
    each(document, "section.question", setUpQuestion);
    each(document, "section.game", setUpGame);
    each(document, "button.reset", function (reset) { reset.addEventListener("click", forgetAll); });
    countProgress();
  });
}());
