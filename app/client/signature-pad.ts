/**
 * Signature pads (pointer drawing → PNG data URL in a hidden input), shared by the note form
 * (app/client/note-form.ts) and the parent portal's consent signing (app/client/consent-sign.ts). Each
 * `[data-signature-pad="<input name>"]` inside the form gets a canvas and a Clear button; the form works
 * without them (typed name only).
 */
export const SIGNATURE_MAX_CHARS = 100_000;

export function signaturePads(form: HTMLFormElement) {
  for (const holder of form.querySelectorAll<HTMLElement>("[data-signature-pad]")) {
    const input = form.elements.namedItem(holder.dataset.signaturePad!) as HTMLInputElement | null;
    if (!input) continue;
    const canvas = document.createElement("canvas");
    canvas.width = 480;
    canvas.height = 140;
    canvas.className = "signature-pad";
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", holder.dataset.label ?? "Signature pad");
    // The pad's error (a refused drawing), when the server named one, describes the canvas the user draws on.
    const described = holder.getAttribute("aria-describedby");
    if (described) canvas.setAttribute("aria-describedby", described);
    const clear = document.createElement("button");
    clear.type = "button";
    clear.className = "btn btn-small";
    clear.textContent = "Clear signature";
    const note = document.createElement("p");
    note.className = "hint";
    note.textContent = holder.dataset.label ?? "Draw the signature";
    for (const el of [note, canvas, clear]) holder.appendChild(el);
    const ctx = canvas.getContext("2d")!;
    ctx.lineWidth = 2.5;
    ctx.lineCap = "round";
    ctx.strokeStyle = "#111";
    let drawing = false;
    let drew = false;
    const at = (e: PointerEvent) => {
      const r = canvas.getBoundingClientRect();
      return [((e.clientX - r.left) * canvas.width) / r.width, ((e.clientY - r.top) * canvas.height) / r.height] as const;
    };
    canvas.addEventListener("pointerdown", (e) => {
      drawing = true;
      canvas.setPointerCapture(e.pointerId);
      const [x, y] = at(e);
      ctx.beginPath();
      ctx.moveTo(x, y);
      e.preventDefault();
    });
    canvas.addEventListener("pointermove", (e) => {
      if (!drawing) return;
      const [x, y] = at(e);
      ctx.lineTo(x, y);
      ctx.stroke();
      drew = true;
    });
    const finish = () => {
      if (!drawing) return;
      drawing = false;
      if (!drew) return;
      const url = canvas.toDataURL("image/png");
      if (url.length > SIGNATURE_MAX_CHARS) {
        note.textContent = "This signature is too large to keep; clear it and sign again.";
        return;
      }
      input.value = url;
      holder.parentElement?.querySelector("[data-signature-preview]")?.remove();
      form.dispatchEvent(new Event("input", { bubbles: true }));
    };
    canvas.addEventListener("pointerup", finish);
    canvas.addEventListener("pointercancel", finish);
    clear.addEventListener("click", () => {
      ctx.clearRect(0, 0, canvas.width, canvas.height);
      drew = false;
      input.value = "";
      holder.parentElement?.querySelector("[data-signature-preview]")?.remove();
      form.dispatchEvent(new Event("input", { bubbles: true }));
    });
  }
}
