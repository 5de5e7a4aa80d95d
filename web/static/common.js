"use strict";
// Shared by every page: JSON writes with the host PIN, the PIN dialog, short messages.
// Stored times are UTC: show each <time datetime> in the phone's own time zone.
document.querySelectorAll("time[datetime]").forEach((node) => {
  const moment = new Date(node.getAttribute("datetime"));
  if (Number.isNaN(moment.getTime())) return;
  const two = (n) => String(n).padStart(2, "0");
  node.textContent = `${moment.getFullYear()}-${two(moment.getMonth() + 1)}-${two(moment.getDate())} ` +
    `${two(moment.getHours())}:${two(moment.getMinutes())}`;
  node.title = moment.toString();
});

const TR = (() => {
  const dialog = document.getElementById("pin-dialog");
  const form = document.getElementById("pin-form");
  const input = document.getElementById("pin-input");
  const error = document.getElementById("pin-error");
  const toastBox = document.getElementById("toast");
  let toastTimer = null;

  function toast(message, bad) {
    toastBox.textContent = message;
    toastBox.className = bad ? "show bad" : "show";
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { toastBox.className = ""; }, bad ? 6000 : 2500);
  }

  async function send(url, body) {
    const response = await fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "Accept": "application/json"},
      body: JSON.stringify(body || {}),
    });
    let data;
    try { data = await response.json(); } catch (e) { data = {error: response.statusText}; }
    return {response, data};
  }

  // Resolves true once the host PIN was accepted (or, with none set yet, chosen), false if the
  // person cancels.
  function askPin(choose) {
    return new Promise((resolve) => {
      error.textContent = "";
      input.value = "";
      document.getElementById("pin-label").textContent = choose ? "Choose the host PIN" : "Host PIN";
      document.getElementById("pin-hint").hidden = !choose;
      document.getElementById("pin-ok").textContent = choose ? "Set the PIN" : "Log in";
      input.autocomplete = choose ? "new-password" : "current-password";
      const done = (ok) => {
        form.onsubmit = null;
        document.getElementById("pin-cancel").onclick = null;
        dialog.close();
        resolve(ok);
      };
      form.onsubmit = async (event) => {
        event.preventDefault();
        const {response, data} = await send(choose ? "/api/pin" : "/api/login", {pin: input.value});
        if (response.ok) {
          toast(choose ? "PIN set: this phone is host" : "logged in as host");
          showHost();
          done(true);
        } else { error.textContent = data.error || "refused"; input.select(); }
      };
      document.getElementById("pin-cancel").onclick = () => done(false);
      dialog.showModal();
      input.focus();
    });
  }

  async function pinIsSet() {
    try {
      return (await (await fetch("/api/whoami", {credentials: "same-origin"})).json()).pin_set;
    } catch (e) { return true; }
  }

  // A write: asks for the PIN when it is needed (to choose one, if none is set yet), shows the
  // referee's one-line answer.
  async function post(url, body) {
    let {response, data} = await send(url, body);
    if (response.status === 403 && /host PIN/.test(data.error || "")) {
      if (!(await askPin(!(await pinIsSet())))) throw new Error("cancelled");
      ({response, data} = await send(url, body));
    }
    if (!response.ok) {
      toast(data.error || ("error " + response.status), true);
      throw new Error(data.error);
    }
    return data;
  }

  const hostButton = document.getElementById("host-button");
  async function showHost() {
    try {
      const me = await (await fetch("/api/whoami", {credentials: "same-origin"})).json();
      hostButton.textContent = me.host ? "Host ✓" : "Host";
      hostButton.dataset.host = me.host ? "yes" : "no";
    } catch (e) { /* offline: keep the label */ }
  }
  showHost();

  hostButton.addEventListener("click", async () => {
    const r = await fetch("/api/whoami", {credentials: "same-origin"});
    const me = await r.json();
    if (me.host) { toast("this phone is host"); return; }
    if (!me.pin_set) { await askPin(true); return; }
    askPin();
  });

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    for (const child of children) if (child != null) node.append(child);
    return node;
  }

  return {post, toast, askPin, el};
})();
