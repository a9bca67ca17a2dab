/**
 * `{% template name %}…{% endtemplate %}`: TRMNL's way to define a partial inside the markup
 * (usually in `shared.liquid`) that `{% render "name" %}` or `{% include "name" %}` then uses.
 * The body is kept as text in the render's own map of partials, the only "files" the engine can
 * read: no markup reaches the disk.
 */
import { type Liquid, Tag, type TagToken, type TopLevelToken } from "liquidjs";

/** TRMNL's rule for a template's name: letters, digits, underscores and slashes. */
const NAME = /^[A-Za-z0-9_/]+$/;

/** Registers the `template` tag on `engine`, defining partials into `partials`. */
export function registerTemplateTag(engine: Liquid, partials: Record<string, string>): void {
  engine.registerTag(
    "template",
    class extends Tag {
      constructor(token: TagToken, remain: TopLevelToken[], liquid: Liquid) {
        super(token, remain, liquid);
        const name = token.args.trim();
        if (!NAME.test(name)) {
          throw new Error(
            `Template name "${name}" may hold only letters, digits, underscores and slashes`,
          );
        }
        let body = "";
        for (;;) {
          const next = remain.shift();
          if (!next) throw new Error(`Template "${name}" has no {% endtemplate %}`);
          if ((next as TagToken).name === "endtemplate") break;
          body += next.getText();
        }
        partials[name] = body.trim();
      }
      /** Defining prints nothing: the body was taken at parse time. */
      render(): string {
        return "";
      }
    },
  );
}
