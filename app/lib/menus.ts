/**
 * Drop-down menus are `<details data-menu>`: they open, and their links and forms work,
 * without JavaScript. Where scripts run, this inline script (in the document, so also on the
 * pages React never takes over, decision 0020) adds what people expect of a menu: Escape in
 * it closes it and puts focus back on its button, and a click anywhere else closes it, so
 * one menu is open at a time. A dialog opened from a menu item leaves the menu alone: when
 * the dialog closes, focus goes back to that item, which must still be there.
 */
export const menuScript = `(function(){var d=document;
function each(f){d.querySelectorAll("details[data-menu][open]").forEach(f)}
d.addEventListener("keydown",function(e){if(e.key!=="Escape")return;each(function(m){if(m.contains(d.activeElement)){m.open=false;m.querySelector("summary").focus()}})});
d.addEventListener("click",function(e){if(e.target.closest("dialog,[role=dialog]"))return;each(function(m){if(!m.contains(e.target))m.open=false})});
})();`;
