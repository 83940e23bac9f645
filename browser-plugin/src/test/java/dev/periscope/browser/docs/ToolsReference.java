package dev.periscope.browser.docs;

import static dev.periscope.browser.docs.Markdown.cell;
import static dev.periscope.browser.docs.Markdown.code;
import static dev.periscope.browser.docs.SchemaText.map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.periscope.api.PluginConfiguration;
import dev.periscope.api.browser.BrowserRuntime;
import dev.periscope.api.tool.SkillDeclaration;
import dev.periscope.api.tool.Tool;
import dev.periscope.api.tool.ToolDescriptor;
import dev.periscope.api.tool.ToolHints;
import dev.periscope.browser.BrowserSettings;
import dev.periscope.browser.runtime.CredentialChannel;
import dev.periscope.browser.runtime.SessionDirectory;
import dev.periscope.browser.tools.BrowserTools;
import dev.periscope.browser.tools.OperatorTools;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.mockito.Mockito;

/**
 * docs/tools.md: every tool of the plugin's skills with its description, hints and parameters, from
 * the descriptors the plugin's own classes build, for a project that is offered every tool. What
 * follows a project's settings is found by building the tools again with each setting of the config
 * schema changed (booleans both ways, enums to each other value, bounded numbers to another bound);
 * strings, lists and maps are not varied.
 */
final class ToolsReference {
  /** The project section the agent tools are rendered for: with it every tool is offered. */
  static final Map<String, Object> EXAMPLE_PROJECT =
      ordered(
          "uploads",
          Map.of("roots", List.of("/home/me/uploads")),
          "credentials",
          Map.of("refs", Map.of("github", "GITHUB_TOKEN")),
          "scripting",
          Map.of("enabled", true));

  /**
   * The agent tools a project or host may not be offered, and when they are. A tool missing from a
   * project without upload roots, credentials or handoffs must be here, and only those.
   */
  static final Map<String, String> OFFERED_WHEN =
      ordered(
          "browser_attach_file",
          "the project names upload roots (`uploads.roots`); its description lists them",
          "browser_fill_credential",
          "the project has credentials: references the host's credential service lists"
              + " (`credentials:` in the harness's project.yaml) or `credentials.refs`; its"
              + " description names them",
          "browser_evaluate",
          "the project enables scripting (`scripting.enabled: true`); the host's approval service"
              + " then allows or refuses each script",
          "browser_handoff",
          "the host has an approval service, through which a person is given the live view");

  private static final ObjectMapper JSON = new ObjectMapper();

  private ToolsReference() {}

  static String render(List<SkillDeclaration> skills, Map<String, Object> configSchema) {
    Map<String, ToolDescriptor> agent = byName(agentTools(EXAMPLE_PROJECT, true));
    Map<String, ToolDescriptor> operator = byName(operatorTools());
    checkConditions(agent.keySet());
    Map<String, Dependence> dependences = dependences(agent, configSchema);

    StringBuilder md = new StringBuilder(Markdown.header("the tools' descriptors"));
    md.append(
        """
        # Tools reference

        Every tool the browser plugin contributes, by skill, with its description, its hints and its
        parameters exactly as the code declares them: the descriptor a host offers a model, and the
        JSON Schema its arguments are checked against. What the tools do in practice, and the page they
        work on, is in [tools-guide.md](tools-guide.md).

        A few descriptions and bounds depend on the project. The agent tools are rendered for a project
        whose `plugins.browser` section is

        ```yaml
        """);
    EXAMPLE_PROJECT.forEach((k, v) -> md.append(k).append(": ").append(flow(v)).append('\n'));
    md.append(
        """
        ```

        on a host with an approval service, so that every tool is offered; where a description or a bound
        follows a setting, the tool says so. Hints are MCP's tool annotations (`readOnlyHint`,
        `destructiveHint`, `idempotentHint`, `openWorldHint`); those not listed are false.
        """);
    Set<String> declared = new TreeSet<>();
    skills.stream()
        .filter(k -> k.audience() == SkillDeclaration.Audience.AGENT)
        .forEach(k -> declared.addAll(k.tools()));
    if (!declared.containsAll(agent.keySet())) {
      throw new IllegalStateException(
          "agent tools no skill of plugin.yaml declares: "
              + new TreeSet<>(agent.keySet()).stream().filter(n -> !declared.contains(n)).toList());
    }
    for (SkillDeclaration skill : skills) {
      boolean forAgents = skill.audience() == SkillDeclaration.Audience.AGENT;
      Map<String, ToolDescriptor> tools = new LinkedHashMap<>(forAgents ? agent : operator);
      if (forAgents) {
        // The agent skills share the plugin's agent tools: each renders those it declares.
        tools.keySet().retainAll(skill.tools());
      }
      if (!new TreeSet<>(tools.keySet()).equals(new TreeSet<>(skill.tools()))) {
        throw new IllegalStateException(
            "plugin.yaml's skill "
                + skill.name()
                + " lists "
                + new TreeSet<>(skill.tools())
                + " but the code contributes "
                + new TreeSet<>(tools.keySet()));
      }
      md.append("\n## Skill ")
          .append(code(skill.name()))
          .append(forAgents ? " (agent)" : " (operator)")
          .append("\n\n")
          .append(
              forAgents
                  ? "Offered to the model while the skill is enabled for the project. Its guidance, which"
                      + " a host gives the model:\n\n"
                  : "Run by the host for the person who runs it, never offered to a model. Its"
                      + " guidance:\n\n")
          .append("> ")
          .append(skill.guidance())
          .append("\n\n")
          .append(
              tools.keySet().stream()
                  .map(n -> "[" + code(n) + "](#" + n + ")")
                  .collect(Collectors.joining(", ")))
          .append('\n');
      tools
          .values()
          .forEach(t -> tool(md, t, dependences.getOrDefault(t.name(), new Dependence())));
    }
    return md.toString();
  }

  private static void tool(StringBuilder md, ToolDescriptor tool, Dependence dependence) {
    md.append("\n### ").append(code(tool.name())).append("\n\n");
    md.append(tool.description()).append("\n\n");
    if (OFFERED_WHEN.containsKey(tool.name())) {
      md.append("Offered only when ").append(OFFERED_WHEN.get(tool.name())).append(".\n\n");
    }
    md.append("Hints: ").append(hints(tool.hints())).append(".\n\n");
    Map<String, Object> schema = parse(tool.inputSchema());
    Map<String, Object> params = map(schema.get("properties"));
    if (params.isEmpty()) {
      md.append("No parameters.\n");
    } else {
      List<?> required = (List<?>) schema.get("required");
      md.append(Markdown.row("parameter", "type", "required", "allowed", "description"));
      md.append("|---|---|---|---|---|\n");
      params.forEach(
          (name, node) -> {
            Map<String, Object> param = map(node);
            String allowed = SchemaText.values(param);
            for (var followed : dependence.keywords.getOrDefault(name, Map.of()).entrySet()) {
              allowed +=
                  " ("
                      + code(followed.getKey())
                      + " follows "
                      + settings(followed.getValue())
                      + ")";
            }
            md.append(
                Markdown.row(
                    code(name),
                    SchemaText.type(param),
                    required.contains(name) ? "yes" : "no",
                    cell(allowed),
                    cell(String.valueOf(param.getOrDefault("description", "")))));
          });
    }
    for (String note : dependence.notes) {
      md.append('\n').append(note).append('\n');
    }
  }

  private static String settings(Set<String> paths) {
    return paths.stream().map(Markdown::code).collect(Collectors.joining(" and "));
  }

  private static String hints(ToolHints h) {
    List<String> set = new ArrayList<>();
    if (h.readOnly()) {
      set.add("`readOnlyHint`");
    }
    if (h.destructive()) {
      set.add("`destructiveHint`");
    }
    if (h.idempotent()) {
      set.add("`idempotentHint`");
    }
    if (h.openWorld()) {
      set.add("`openWorldHint`");
    }
    return set.isEmpty() ? "none" : String.join(", ", set);
  }

  /** The agent tools the plugin offers a project with this section, built as the plugin does. */
  static List<ToolDescriptor> agentTools(Map<String, Object> project, boolean handoffs) {
    BrowserSettings settings = BrowserSettings.from(new PluginConfiguration(project));
    CredentialChannel channel =
        new CredentialChannel(
            Optional.empty(),
            settings.credentials().refs(),
            name -> null,
            settings.credentials().requireApproval(),
            Optional.empty(),
            settings.credentials().modelTypedPasswords());
    // Building descriptors asks nothing of the runtime.
    try (BrowserTools tools =
        new BrowserTools(
            Mockito.mock(BrowserRuntime.class),
            SessionDirectory.inMemory(),
            settings.tools(),
            Optional.empty(),
            channel,
            handoffs)) {
      List<ToolDescriptor> all =
          new ArrayList<>(tools.tools().stream().map(Tool::descriptor).toList());
      if (settings.scriptingEnabled()) {
        all.add(tools.scriptTool().descriptor());
      }
      return all;
    }
  }

  /** The operator tools; building their descriptors needs none of what they read. */
  static List<ToolDescriptor> operatorTools() {
    List<ToolDescriptor> all =
        new ArrayList<>(
            new OperatorTools(null, null, null, Optional.empty())
                .tools().stream().map(Tool::descriptor).toList());
    all.add(
        new dev.periscope.browser.tools.RecordingTool(null, null, Optional.empty(), null)
            .tool()
            .descriptor());
    return all;
  }

  /** The tools a project without upload roots or credentials, on a host without handoffs, lacks. */
  private static void checkConditions(Set<String> all) {
    Set<String> missing = new TreeSet<>(all);
    missing.removeAll(byName(agentTools(Map.of(), false)).keySet());
    if (!missing.equals(new TreeSet<>(OFFERED_WHEN.keySet()))) {
      throw new IllegalStateException(
          "the tools offered only to some projects or hosts are "
              + missing
              + ", but ToolsReference.OFFERED_WHEN says when for "
              + new TreeSet<>(OFFERED_WHEN.keySet()));
    }
  }

  /** What of each agent tool follows a setting. */
  private static final class Dependence {
    /** Per parameter, each schema keyword that follows settings, and those settings. */
    final Map<String, Map<String, Set<String>>> keywords = new LinkedHashMap<>();

    final List<String> notes = new ArrayList<>();
  }

  private static Map<String, Dependence> dependences(
      Map<String, ToolDescriptor> base, Map<String, Object> configSchema) {
    Map<String, Dependence> all = new LinkedHashMap<>();
    for (Map.Entry<String, Object> variation : variations("", configSchema)) {
      String path = variation.getKey();
      String with = code(path + ": " + flow(variation.getValue()));
      Map<String, ToolDescriptor> varied =
          byName(agentTools(with(EXAMPLE_PROJECT, path, variation.getValue()), true));
      for (String name : varied.keySet()) {
        if (!base.containsKey(name)) {
          throw new IllegalStateException(
              name + " is offered only with " + with + ": add that to EXAMPLE_PROJECT");
        }
      }
      for (ToolDescriptor b : base.values()) {
        ToolDescriptor v = varied.get(b.name());
        Dependence d = all.computeIfAbsent(b.name(), n -> new Dependence());
        if (v == null) {
          d.notes.add("Not offered with " + with + ".");
          continue;
        }
        if (!b.description().equals(v.description())) {
          d.notes.add("With " + with + " its description reads:\n\n> " + v.description());
        }
        if (!b.hints().equals(v.hints())) {
          d.notes.add("With " + with + " its hints are " + hints(v.hints()) + ".");
        }
        compareSchemas(d, path, with, parse(b.inputSchema()), parse(v.inputSchema()));
      }
    }
    return all;
  }

  private static void compareSchemas(
      Dependence d, String path, String with, Map<String, Object> b, Map<String, Object> v) {
    if (!Objects.equals(b.get("required"), v.get("required"))) {
      d.notes.add("With " + with + " its required parameters are " + v.get("required") + ".");
    }
    Map<String, Object> bp = map(b.get("properties"));
    Map<String, Object> vp = map(v.get("properties"));
    Set<String> names = new LinkedHashSet<>(bp.keySet());
    names.addAll(vp.keySet());
    for (String name : names) {
      if (!bp.containsKey(name) || !vp.containsKey(name)) {
        d.notes.add(
            "With "
                + with
                + " it "
                + (vp.containsKey(name) ? "has" : "has no")
                + " parameter "
                + code(name)
                + ".");
        continue;
      }
      Map<String, Object> bs = map(bp.get(name));
      Map<String, Object> vs = map(vp.get(name));
      Set<String> keywords = new LinkedHashSet<>(bs.keySet());
      keywords.addAll(vs.keySet());
      for (String keyword : keywords) {
        if (Objects.equals(bs.get(keyword), vs.get(keyword))) {
          continue;
        }
        if (keyword.equals("description")) {
          d.notes.add(
              "With " + with + " parameter " + code(name) + " reads: " + vs.get("description"));
        } else {
          d.keywords
              .computeIfAbsent(name, n -> new LinkedHashMap<>())
              .computeIfAbsent(keyword, k -> new TreeSet<>())
              .add(path);
        }
      }
    }
  }

  /** One changed value for each setting that can be varied, by its dotted path. */
  private static List<Map.Entry<String, Object>> variations(
      String prefix, Map<String, Object> object) {
    List<Map.Entry<String, Object>> all = new ArrayList<>();
    map(object.get("properties"))
        .forEach(
            (name, n) -> {
              Map<String, Object> node = map(n);
              String path = prefix + name;
              Object def = node.get("default");
              if (node.containsKey("properties")) {
                // A section with required settings (grid, cdp) says where browsers run, and is
                // not valid with one setting alone.
                if (!node.containsKey("required")) {
                  all.addAll(variations(path + ".", node));
                }
              } else if ("boolean".equals(node.get("type"))) {
                all.add(Map.entry(path, true));
                all.add(Map.entry(path, false));
              } else if (node.get("enum") instanceof List<?> values) {
                values.stream()
                    .filter(x -> !x.equals(def))
                    .forEach(x -> all.add(Map.entry(path, x)));
              } else if (node.get("minimum") instanceof Number min
                  && node.get("maximum") instanceof Number max) {
                all.add(Map.entry(path, min.equals(def) ? max : min));
              }
            });
    return all;
  }

  /** A copy of a project section with one setting, at a dotted path, set. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> with(Map<String, Object> project, String path, Object value) {
    Map<String, Object> copy = deepCopy(project);
    Map<String, Object> at = copy;
    String[] parts = path.split("\\.");
    for (int i = 0; i < parts.length - 1; i++) {
      at = (Map<String, Object>) at.computeIfAbsent(parts[i], k -> new LinkedHashMap<>());
    }
    at.put(parts[parts.length - 1], value);
    return copy;
  }

  private static Map<String, Object> deepCopy(Map<String, Object> m) {
    Map<String, Object> copy = new LinkedHashMap<>();
    m.forEach((k, v) -> copy.put(k, v instanceof Map<?, ?> inner ? deepCopy(map(inner)) : v));
    return copy;
  }

  /** A value in YAML's flow style: {@code {roots: [/home/me/uploads]}}. */
  private static String flow(Object value) {
    if (value instanceof Map<?, ?> m) {
      return m.entrySet().stream()
          .map(e -> e.getKey() + ": " + flow(e.getValue()))
          .collect(Collectors.joining(", ", "{", "}"));
    }
    if (value instanceof List<?> l) {
      return l.stream().map(ToolsReference::flow).collect(Collectors.joining(", ", "[", "]"));
    }
    return String.valueOf(value);
  }

  private static Map<String, ToolDescriptor> byName(List<ToolDescriptor> tools) {
    Map<String, ToolDescriptor> m = new LinkedHashMap<>();
    tools.forEach(t -> m.put(t.name(), t));
    return m;
  }

  private static Map<String, Object> parse(String json) {
    try {
      return map(JSON.readValue(json, LinkedHashMap.class));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a tool's input schema is not JSON: " + json, e);
    }
  }

  /** A map of the keys and values in the order given. */
  @SuppressWarnings("unchecked")
  private static <V> Map<String, V> ordered(Object... keysAndValues) {
    Map<String, V> m = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      m.put((String) keysAndValues[i], (V) keysAndValues[i + 1]);
    }
    return m;
  }
}
