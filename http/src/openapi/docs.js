// Renders /api/openapi.json as a browsable list: one section per tag, one collapsible entry per
// call with its parameters, request body and answers. Kept small and dependency-free so the
// page works offline and under a script-src 'self' CSP.
(function () {
  "use strict";
  var doc;

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) {
      node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return node;
  }

  function resolve(schema) {
    var seen = 0;
    while (schema && schema.$ref && seen++ < 20) {
      schema = doc.components.schemas[schema.$ref.split("/").pop()];
    }
    return schema || {};
  }

  // A schema as a short JSON-like sketch, references expanded a few levels deep.
  function sketch(schema, depth) {
    if (!schema) return "any";
    var name = schema.$ref ? schema.$ref.split("/").pop() : null;
    var s = resolve(schema);
    if (depth > 3 && name) return name;
    if (s.anyOf || s.oneOf) return (s.anyOf || s.oneOf).map(function (x) { return sketch(x, depth + 1); }).join(" | ");
    if (s.allOf) return s.allOf.map(function (x) { return sketch(x, depth + 1); }).join(" & ");
    var type = Array.isArray(s.type) ? s.type.filter(function (t) { return t !== "null"; })[0] : s.type;
    var nullable = Array.isArray(s.type) && s.type.indexOf("null") >= 0 ? " | null" : "";
    if (type === "array") return "[" + sketch(s.items, depth + 1) + "]" + nullable;
    if (type === "object" || s.properties) {
      var pad = new Array(depth + 2).join("  ");
      var req = s.required || [];
      var lines = Object.keys(s.properties || {}).map(function (k) {
        return pad + k + (req.indexOf(k) >= 0 ? "" : "?") + ": " + sketch(s.properties[k], depth + 1);
      });
      return lines.length ? "{\n" + lines.join(",\n") + "\n" + pad.slice(2) + "}" + nullable : "object" + nullable;
    }
    return (type || "any") + (s.format ? " (" + s.format + ")" : "") + nullable;
  }

  function operation(path, method, op) {
    var body = el("div", { class: "body" });
    if (op.description) body.appendChild(el("p", {}, [op.description]));
    if (op.parameters && op.parameters.length) {
      var rows = op.parameters.map(function (p) {
        return el("tr", {}, [el("td", {}, [el("code", {}, [p.name])]), el("td", {}, [p.in]), el("td", {}, [sketch(p.schema, 0)]), el("td", {}, [p.description || ""])]);
      });
      body.appendChild(el("h4", {}, ["Parameters"]));
      body.appendChild(el("table", {}, [el("tr", {}, [el("th", {}, ["name"]), el("th", {}, ["in"]), el("th", {}, ["type"]), el("th", {}, [""])])].concat(rows)));
    }
    if (op.requestBody) {
      body.appendChild(el("h4", {}, ["Request body"]));
      Object.keys(op.requestBody.content || {}).forEach(function (type) {
        body.appendChild(el("pre", {}, [type + "\n" + sketch(op.requestBody.content[type].schema, 0)]));
      });
    }
    body.appendChild(el("h4", {}, ["Responses"]));
    Object.keys(op.responses || {}).forEach(function (status) {
      var r = op.responses[status];
      var content = r.content || {};
      var types = Object.keys(content);
      var shape = types.length && status < "400" ? "\n" + sketch(content[types[0]].schema, 0) : "";
      body.appendChild(el("pre", {}, [status + " " + (r.description || "") + shape]));
    });
    var secured = (op.security || doc.security || []).filter(function (s) { return Object.keys(s).length; });
    var optional = (op.security || []).some(function (s) { return !Object.keys(s).length; });
    var lock = secured.length ? (optional ? "sign-in optional" : "needs " + secured.map(function (s) { return Object.keys(s)[0]; }).join(" or ")) : "public";
    var summary = el("summary", {}, [el("span", { class: "m " + method }, [method]), " " + path + "  ", el("span", { class: "lock" }, [(op.summary || "") + " · " + lock])]);
    var item = el("details", { "data-filter": (method + " " + path + " " + (op.summary || "")).toLowerCase() }, [summary, body]);
    return item;
  }

  function render() {
    document.getElementById("intro").textContent = (doc.info.description || "") + " Version " + doc.info.version + ", OpenAPI " + doc.openapi + ".";
    var byTag = {};
    Object.keys(doc.paths).sort().forEach(function (path) {
      ["get", "post", "put", "patch", "delete"].forEach(function (method) {
        var op = doc.paths[path][method];
        if (!op) return;
        var tag = (op.tags && op.tags[0]) || "other";
        (byTag[tag] = byTag[tag] || []).push(operation(path, method, op));
      });
    });
    var ops = document.getElementById("ops");
    Object.keys(byTag).sort().forEach(function (tag) {
      ops.appendChild(el("h2", {}, [tag]));
      byTag[tag].forEach(function (node) { ops.appendChild(node); });
    });
    var search = document.getElementById("search");
    search.hidden = false;
    search.addEventListener("input", function () {
      var q = search.value.toLowerCase();
      Array.prototype.forEach.call(ops.querySelectorAll("details"), function (d) {
        d.hidden = q && d.getAttribute("data-filter").indexOf(q) < 0;
      });
    });
  }

  fetch("/api/openapi.json")
    .then(function (r) { return r.json(); })
    .then(function (json) { doc = json; render(); })
    .catch(function (e) { document.getElementById("intro").textContent = "Could not load /api/openapi.json: " + e; });
})();
