package dev.periscope.browser.docs;

import static dev.periscope.browser.docs.Markdown.cell;
import static dev.periscope.browser.docs.Markdown.code;
import static dev.periscope.browser.docs.SchemaText.map;

import java.util.List;
import java.util.Map;

/**
 * docs/configuration-reference.md: every setting of the {@code config} JSON Schema in plugin.yaml,
 * in the schema's order, each with its type, default, allowed values and description.
 */
final class ConfigurationReference {
  private ConfigurationReference() {}

  static String render(Map<String, Object> configSchema) {
    StringBuilder md = new StringBuilder(Markdown.header("the config JSON Schema in plugin.yaml"));
    md.append(
        """
        # Configuration reference

        Every setting of the browser plugin's section of a project's configuration (`plugins.browser` in
        the harness's `DIR/.harness/project.yaml`), as the `config` JSON Schema in
        [plugin.yaml](../plugin.yaml) declares it. The host checks the section against that schema before
        the plugin starts: an unknown key, or a value of another type or outside what is allowed, is refused
        with its path. A setting without a default is unset unless the project sets it; its description
        says what that means. [configuration.md](configuration.md) shows most of them in one project.yaml,
        and the guides explain what they do.

        """);
    md.append(Markdown.row("setting", "type", "default", "allowed", "description"));
    md.append("|---|---|---|---|---|\n");
    settings(md, "", configSchema);
    return md.toString();
  }

  /** A row for each property of an object node, and the rows of its own properties after it. */
  private static void settings(StringBuilder md, String prefix, Map<String, Object> object) {
    if (!(object.get("properties") instanceof Map<?, ?> properties)) {
      return;
    }
    List<?> requiredHere = object.get("required") instanceof List<?> r ? r : List.of();
    properties.forEach(
        (name, node) -> {
          Map<String, Object> setting = map(node);
          String path = prefix + name;
          String allowed = SchemaText.values(setting);
          if (requiredHere.contains(name)) {
            allowed =
                "required when "
                    + code(prefix.substring(0, prefix.length() - 1))
                    + " is set"
                    + (allowed.isEmpty() ? "" : "; " + allowed);
          }
          md.append(
              Markdown.row(
                  code(path),
                  SchemaText.type(setting),
                  setting.containsKey("default") ? code(setting.get("default")) : "",
                  cell(allowed),
                  cell(String.valueOf(setting.getOrDefault("description", "")))));
          settings(md, path + ".", setting);
        });
  }
}
