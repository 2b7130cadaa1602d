/**
 * Drop-down menus are `<details data-menu>`: they open, and their links and forms work,
 * without JavaScript. Where scripts run, this inline script (in the document, so also on the
 * pages React never takes over, decision 0020) adds what people expect of a menu: Escape
 * closes it and puts focus back on its button, and a click anywhere else closes it, so one
 * menu is open at a time.
 */
export const menuScript = `(function(){var d=document;
function each(f){d.querySelectorAll("details[data-menu][open]").forEach(f)}
d.addEventListener("keydown",function(e){if(e.key!=="Escape")return;each(function(m){var inside=m.contains(d.activeElement);m.open=false;if(inside)m.querySelector("summary").focus()})});
d.addEventListener("click",function(e){each(function(m){if(!m.contains(e.target))m.open=false})});
})();`;
