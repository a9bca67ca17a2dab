/**
 * The service's own stylesheet for the design system's documented classes (TRMNL.md "Plugins,
 * recipes…": screen, view, mashup, layout, columns, grid, item, title, label, value,
 * description, title_bar, gap and text helpers, `data-clamp`, grey fills per bit depth), written
 * from the class names and what the framework's documentation says they do, so typical recipes
 * look right. `SCREEN_FRAMEWORK_CSS` replaces it with an operator's file (e.g. TRMNL's own).
 *
 * Sizes are in `--u`, one design pixel: 1px on an 800x480 panel, scaled by the shell for larger
 * ones (`shell.ts`), so a recipe keeps its proportions on a 1872x1404 panel. Greys: on a 1-bit
 * panel a grey fill is a pattern of black and white pixels (a flat grey would snap to black or
 * white, since only pictures are dithered); on 2 and 4 bits it is the nearest panel level.
 */

/** Grey fills by name: the grey on 2 and 4 bits, the share of black dots on 1 bit. */
const GREYS: Array<[string, number]> = [
  ["1", 0.15],
  ["2", 0.3],
  ["3", 0.45],
  ["4", 0.55],
  ["5", 0.7],
  ["6", 0.8],
  ["7", 0.9],
  ["10", 0.15],
  ["20", 0.25],
  ["25", 0.3],
  ["30", 0.35],
  ["40", 0.45],
  ["45", 0.5],
  ["50", 0.55],
  ["55", 0.6],
  ["60", 0.65],
  ["65", 0.7],
  ["70", 0.75],
  ["75", 0.85],
];

/**
 * A 1-bit pattern of about `lightness` white: 2x2 cells (black, 25%, 50% or 75% white) — the
 * ordered dither an e-ink panel shows steadily, drawn crisp.
 */
function pattern(lightness: number): string {
  if (lightness < 0.2) return "#000";
  if (lightness > 0.85) return "#fff";
  if (lightness < 0.4) {
    return "radial-gradient(circle at 0.5px 0.5px, #fff 0.5px, #000 0.5px) 0 0 / 2px 2px";
  }
  if (lightness < 0.65) return "repeating-conic-gradient(#000 0 25%, #fff 0 50%) 0 0 / 2px 2px";
  return "radial-gradient(circle at 0.5px 0.5px, #000 0.5px, #fff 0.5px) 0 0 / 2px 2px";
}

function greyRules(): string {
  const rules: string[] = [];
  for (const [name, lightness] of GREYS) {
    const level = Math.round(lightness * 255);
    const hex = `rgb(${level},${level},${level})`;
    rules.push(
      `.bg--gray-${name}{background:${hex}}`,
      `.screen--1bit .bg--gray-${name}{background:${pattern(lightness)}}`,
      `.text--gray-${name}{color:${hex}}`,
      `.screen--1bit .text--gray-${name}{color:${lightness > 0.6 ? "#fff" : "#000"}}`,
    );
  }
  return rules.join("\n");
}

function repeated(count: number, rule: (n: number) => string): string {
  return Array.from({ length: count }, (_, i) => rule(i + 1)).join("\n");
}

export const FRAMEWORK_CSS = `
*,*::before,*::after{box-sizing:border-box}
html,body{margin:0;padding:0;background:#fff;color:#000;overflow:hidden}
body{font-family:"Noto Sans",sans-serif;font-size:calc(16 * var(--u));line-height:1.3;
  -webkit-font-smoothing:antialiased;text-rendering:geometricPrecision}
img,svg,canvas,video{max-width:100%}

.screen{--gap:calc(10 * var(--u));width:var(--screen-w);height:var(--screen-h);
  padding:var(--gap);overflow:hidden;position:relative;background:#fff;display:flex}
.screen.screen--no-bleed,.screen.no_screen_padding,.screen--no_screen_padding{padding:0}

.view{position:relative;display:flex;flex-direction:column;overflow:hidden;width:100%;height:100%;
  min-width:0;min-height:0}
.mashup{display:grid;width:100%;height:100%;gap:var(--gap);grid-template-columns:1fr 1fr;
  grid-template-rows:1fr 1fr}
.mashup > .view{border-radius:calc(7 * var(--u));border:calc(1 * var(--u)) solid #000}
.mashup--1x1 > .view{grid-column:1 / 3;grid-row:1 / 3}
.mashup--1Lx1R > .view{grid-row:1 / 3}
.mashup--1Tx1B > .view{grid-column:1 / 3}
.mashup--1Lx2R > .view:nth-child(1){grid-row:1 / 3}
.mashup--1Lx2R > .view:nth-child(n+2){grid-column:2}
.mashup--2Lx1R > .view:nth-child(-n+2){grid-column:1}
.mashup--2Lx1R > .view:nth-child(3){grid-column:2;grid-row:1 / 3}
.mashup--1Tx2B > .view:nth-child(1){grid-column:1 / 3}
.mashup--2Tx1B > .view:nth-child(3){grid-column:1 / 3}

.layout{display:flex;flex:1 1 auto;min-height:0;min-width:0;overflow:hidden;gap:var(--gap);
  justify-content:center;align-items:center;flex-direction:row}
.mashup .layout{padding:var(--gap)}
.layout--row{flex-direction:row}
.layout--col{flex-direction:column}
.layout--left{justify-content:flex-start}.layout--right{justify-content:flex-end}
.layout--top{align-items:flex-start}.layout--bottom{align-items:flex-end}
.layout--col.layout--left{align-items:flex-start}
.layout--col.layout--right{align-items:flex-end}
.layout--col.layout--top{justify-content:flex-start}
.layout--col.layout--bottom{justify-content:flex-end}
.layout--col:not(.layout--left):not(.layout--right):not(.layout--start):not(.layout--end)
  {align-items:center}
.layout--center{justify-content:center;align-items:center}
.layout--center-x{justify-content:center}.layout--center-y{align-items:center}
.layout--col.layout--center-x{align-items:center}.layout--col.layout--center-y{justify-content:center}
.layout--start{justify-content:flex-start;align-items:flex-start}
.layout--end{justify-content:flex-end;align-items:flex-end}
.layout--stretch > *{flex:1 1 0%;align-self:stretch}
.layout--stretch-x > *{flex:1 1 0%}.layout--stretch-y > *{align-self:stretch}
.layout--col.layout--stretch-x > *{flex:initial;align-self:stretch}
.layout--col.layout--stretch-y > *{flex:1 1 0%;align-self:auto}
.layout--space-between{justify-content:space-between}

.columns{display:flex;gap:var(--gap);width:100%;min-height:0;max-height:100%}
.column{display:flex;flex-direction:column;gap:var(--gap);flex:1 1 0%;min-width:0;min-height:0;
  overflow:hidden}
.grid{display:grid;gap:var(--gap);width:100%;grid-template-columns:1fr}
${repeated(12, (n) => `.grid--cols-${n}{grid-template-columns:repeat(${n},minmax(0,1fr))}`)}
${repeated(12, (n) => `.col--span-${n}{grid-column:span ${n}}`)}
.row{display:flex;flex-direction:row;gap:var(--gap);align-items:center}
.col{display:flex;flex-direction:column;gap:var(--gap)}

.flex{display:flex}.flex--row{flex-direction:row}.flex--col{flex-direction:column}
.flex--wrap{flex-wrap:wrap}.flex--center{justify-content:center;align-items:center}
.flex--center-x{justify-content:center}.flex--center-y{align-items:center}
.flex--left{justify-content:flex-start}.flex--right{justify-content:flex-end}
.flex--top{align-items:flex-start}.flex--bottom{align-items:flex-end}
.flex--between{justify-content:space-between}.flex--around{justify-content:space-around}
.flex--stretch{align-items:stretch}.stretch{flex:1 1 0%;align-self:stretch}
.stretch-x{flex:1 1 0%}.stretch-y{align-self:stretch}.no-shrink{flex-shrink:0}
.gap{gap:var(--gap)}.gap--none{gap:0}
.gap--xsmall{gap:calc(4 * var(--u))}.gap--small{gap:calc(7 * var(--u))}
.gap--medium{gap:calc(16 * var(--u))}.gap--large{gap:calc(24 * var(--u))}
.gap--xlarge{gap:calc(36 * var(--u))}.gap--space-between{justify-content:space-between}
.w-full,.w--full{width:100%}.h-full,.h--full{height:100%}

.item{display:flex;gap:calc(12 * var(--u));align-items:stretch;min-width:0}
.item .meta{flex:0 0 calc(10 * var(--u));width:calc(10 * var(--u));
  border-radius:calc(2 * var(--u));background:#000}
.screen--1bit .item .meta{background:repeating-conic-gradient(#000 0 25%, #fff 0 50%) 0 0 / 2px 2px}
.item .meta:has(.index){flex-basis:auto;width:auto;background:none}
.item .index{display:inline-flex;justify-content:center;align-items:center;
  min-width:calc(28 * var(--u));padding:0 calc(4 * var(--u));border-radius:calc(4 * var(--u));
  background:#000;color:#fff;font-weight:700;font-size:calc(16 * var(--u))}
.item .content{display:flex;flex-direction:column;flex:1 1 auto;min-width:0;
  gap:calc(2 * var(--u))}
.item .icon{flex:0 0 auto}

.title{font-size:calc(26 * var(--u));font-weight:700;line-height:1.15}
.title--small{font-size:calc(18 * var(--u))}
.title--large{font-size:calc(34 * var(--u))}
.title--xlarge{font-size:calc(44 * var(--u))}
.label{display:inline-block;font-size:calc(16 * var(--u));font-weight:700;line-height:1.25;
  letter-spacing:0.01em}
.label--small{font-size:calc(13 * var(--u))}
.label--large{font-size:calc(20 * var(--u))}
.label--underline{text-decoration:underline}
.label--inverted,.label--outline{width:fit-content}
.label--inverted{background:#000;color:#fff;padding:0 calc(4 * var(--u));
  border-radius:calc(3 * var(--u))}
.label--outline{border:calc(1 * var(--u)) solid #000;padding:0 calc(4 * var(--u));
  border-radius:calc(3 * var(--u))}
.label--gray,.label--gray-out{color:#555}
.screen--1bit .label--gray,.screen--1bit .label--gray-out{color:#000;font-weight:400}
.value{font-size:calc(38 * var(--u));font-weight:700;line-height:1;
  font-variant-numeric:tabular-nums;letter-spacing:-0.01em}
.value--xxsmall{font-size:calc(16 * var(--u))}
.value--xsmall{font-size:calc(20 * var(--u))}
.value--small{font-size:calc(26 * var(--u))}
.value--large{font-size:calc(58 * var(--u))}
.value--xlarge{font-size:calc(74 * var(--u))}
.value--xxlarge{font-size:calc(96 * var(--u))}
.value--xxxlarge{font-size:calc(128 * var(--u))}
.value--tnums{font-variant-numeric:tabular-nums}
.description{font-size:calc(16 * var(--u));line-height:1.35}
.description--large{font-size:calc(20 * var(--u))}
.divider{border-top:calc(1 * var(--u)) solid #000;width:100%}
.divider--vertical{border-top:0;border-left:calc(1 * var(--u)) solid #000;width:0;height:100%}

.title_bar{display:flex;align-items:center;gap:calc(8 * var(--u));flex:0 0 auto;
  height:calc(40 * var(--u));padding:0 calc(10 * var(--u));margin-top:var(--gap);
  background:#000;color:#fff;border-radius:calc(7 * var(--u))}
.screen--1bit .title_bar{background:#000}
.mashup .title_bar{height:calc(30 * var(--u));margin-top:0;border-radius:0}
.title_bar .image{height:calc(24 * var(--u));width:auto;filter:invert(1)}
.mashup .title_bar .image{height:calc(18 * var(--u))}
.title_bar .title{font-size:calc(17 * var(--u));font-weight:700;white-space:nowrap}
.title_bar .instance{font-size:calc(15 * var(--u));margin-left:auto;white-space:nowrap;
  overflow:hidden;text-overflow:ellipsis;min-width:0}
.mashup .title_bar .title{font-size:calc(14 * var(--u))}
.mashup .title_bar .instance{font-size:calc(13 * var(--u))}

.text--left{text-align:left}.text--center{text-align:center}.text--right{text-align:right}
.text--justify{text-align:justify}.text--black{color:#000}.text--white{color:#fff}
.text--nowrap{white-space:nowrap}.text--uppercase{text-transform:uppercase}
.text--bold,.font--bold{font-weight:700}.font--regular{font-weight:400}
.bg--black{background:#000;color:#fff}.bg--white{background:#fff}
.rounded{border-radius:calc(7 * var(--u))}.rounded--full{border-radius:9999px}
.border{border:calc(1 * var(--u)) solid #000}
.border--h-1{border-top:calc(1 * var(--u)) solid #000;border-bottom:calc(1 * var(--u)) solid #000}
.outline{outline:calc(1 * var(--u)) solid #000}
.image{display:block;max-width:100%;max-height:100%}
.image--fill{width:100%;height:100%;object-fit:cover}
.image--contain{width:100%;height:100%;object-fit:contain}
.image--cover{width:100%;height:100%;object-fit:cover}
.hidden{display:none}
.p--none{padding:0}.p--small{padding:calc(7 * var(--u))}.p--medium{padding:calc(16 * var(--u))}
.mt--small{margin-top:calc(7 * var(--u))}.mb--small{margin-bottom:calc(7 * var(--u))}
.clamp--none{-webkit-line-clamp:unset}
${
  repeated(
    10,
    (n) =>
      `[data-clamp="${n}"]{display:-webkit-box;-webkit-box-orient:vertical;` +
      `-webkit-line-clamp:${n};overflow:hidden}`,
  )
}
.table{width:100%;border-collapse:collapse;font-size:calc(16 * var(--u))}
.table th{text-align:left;font-weight:700;border-bottom:calc(2 * var(--u)) solid #000;
  padding:calc(4 * var(--u)) calc(6 * var(--u))}
.table td{padding:calc(4 * var(--u)) calc(6 * var(--u));
  border-bottom:calc(1 * var(--u)) solid #000}
.table--small{font-size:calc(13 * var(--u))}
.table--condensed td,.table--condensed th{padding:calc(2 * var(--u)) calc(4 * var(--u))}
.progress-bar{width:100%;height:calc(12 * var(--u));border:calc(1 * var(--u)) solid #000;
  border-radius:calc(6 * var(--u));overflow:hidden}
.progress-bar .fill,.progress-bar > div{height:100%;background:#000}
.screen--dark-mode,.screen--dark-mode .view{background:#000;color:#fff}
${greyRules()}
`;
