package dev.periscope.harness.host;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.periscope.api.Cancellation;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.harness.HarnessException;
import dev.periscope.harness.profile.Yaml;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a scripted agent session: {@code steps:} a list of {@code {tool, args}}. An argument {@code
 * target: {name: N[, role: R]}} becomes the {@code observation_id} and {@code element_ref} of the
 * first element of the latest observation whose name is N (whitespace collapsed) and whose role or
 * kind is R. Stops at the first failing step, unless the step says {@code expect: error}: then it
 * must fail, and the script goes on.
 */
public final class ScriptRunner {
  /** One step's outcome, as printed. */
  public record StepResult(int step, String tool, ToolResult result) {}

  private final Host host;
  private final String session;
  private Map<String, Object> latestObservation;

  /** The running step's cancellation; once stopped, no further step starts. */
  private volatile Cancellation current = Cancellation.none();

  private volatile boolean stopped;

  public ScriptRunner(Host host, String session) {
    this.host = host;
    this.session = session;
  }

  public static List<Map<String, Object>> readSteps(Path script) {
    JsonNode steps = Yaml.readObject(script).path("steps");
    if (!steps.isArray() || steps.isEmpty()) {
      throw new HarnessException(
          script + ": expected 'steps:', a non-empty list of {tool: NAME, args: {...}}");
    }
    List<Map<String, Object>> out = new ArrayList<>();
    for (int i = 0; i < steps.size(); i++) {
      JsonNode s = steps.get(i);
      if (!s.path("tool").isTextual() || (s.has("args") && !s.get("args").isObject())) {
        throw new HarnessException(
            script + ": steps[" + i + "]: expected {tool: NAME, args: {...}}");
      }
      if (s.has("expect") && !"error".equals(s.get("expect").asText())) {
        throw new HarnessException(script + ": steps[" + i + "]: expect may only be 'error'");
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> step = Yaml.JSON.convertValue(s, Map.class);
      out.add(step);
    }
    return out;
  }

  /** Cancels the running step; no further step starts. From any thread. */
  public void stop() {
    stopped = true;
    current.cancel();
  }

  /**
   * Runs the steps, printing each result; returns false when a step failed or the run was stopped.
   */
  public boolean run(List<Map<String, Object>> steps, boolean json, PrintStream out) {
    for (int i = 0; i < steps.size(); i++) {
      if (stopped) {
        return false;
      }
      StepResult r = step(i + 1, steps.get(i));
      print(r, json, out);
      boolean expectsError = "error".equals(steps.get(i).get("expect"));
      if (r.result().isError() != expectsError) {
        if (expectsError) {
          out.println("step " + r.step() + " (" + r.tool() + ") was expected to fail and did not");
        }
        return false;
      }
    }
    return true;
  }

  @SuppressWarnings("unchecked")
  public StepResult step(int number, Map<String, Object> step) {
    String tool = (String) step.get("tool");
    Map<String, Object> args =
        new LinkedHashMap<>((Map<String, Object>) step.getOrDefault("args", Map.of()));
    Object target = args.remove("target");
    if (target != null) {
      String problem = resolveTarget(target, args);
      if (problem != null) {
        return new StepResult(number, tool, ToolResult.error("step " + number + ": " + problem));
      }
    }
    Cancellation cancellation = Cancellation.none();
    current = cancellation;
    if (stopped) {
      cancellation.cancel();
    }
    ToolResult result = host.call(session, tool, args, cancellation);
    if (result.structured() != null
        && result.structured().get("observation") instanceof Map<?, ?> o) {
      latestObservation = (Map<String, Object>) o;
    }
    return new StepResult(number, tool, result);
  }

  @SuppressWarnings("unchecked")
  private String resolveTarget(Object target, Map<String, Object> args) {
    if (!(target instanceof Map<?, ?> t) || !(t.get("name") instanceof String name)) {
      return "target must be {name: N} or {role: R, name: N}";
    }
    String role = t.get("role") instanceof String r ? r : null;
    if (latestObservation == null) {
      return "target "
          + describe(name, role)
          + " needs an observation first; call browser_open or browser_observe";
    }
    String wanted = collapse(name);
    List<String> seen = new ArrayList<>();
    for (Map<String, Object> e : (List<Map<String, Object>>) latestObservation.get("elements")) {
      String elementName = collapse(String.valueOf(e.get("name")));
      // The structured form leaves a plain link's role and kind out: it is the default.
      Object elementRole = e.getOrDefault("role", "link");
      boolean roleMatches =
          role == null || role.equals(elementRole) || role.equals(e.getOrDefault("kind", "a"));
      if (elementName.equals(wanted) && roleMatches) {
        args.put("observation_id", latestObservation.get("id"));
        args.put("element_ref", e.get("ref"));
        return null;
      }
      seen.add(elementRole + " \"" + elementName + "\"");
    }
    return "no element "
        + describe(name, role)
        + " in the latest observation; it has: "
        + (seen.isEmpty() ? "(no elements)" : String.join(", ", seen));
  }

  private static String describe(String name, String role) {
    return (role == null ? "" : role + " ") + "named \"" + name + "\"";
  }

  private static String collapse(String s) {
    return s.replaceAll("\\s+", " ").trim();
  }

  public static void print(StepResult r, boolean json, PrintStream out) {
    if (json) {
      ObjectNode line = Yaml.JSON.createObjectNode();
      line.put("step", r.step());
      line.put("tool", r.tool());
      line.put("isError", r.result().isError());
      line.put("text", r.result().text());
      line.set("structured", Yaml.JSON.valueToTree(r.result().structured()));
      out.println(line.toString());
    } else {
      out.println(
          "── step " + r.step() + ": " + r.tool() + (r.result().isError() ? " (error)" : ""));
      out.println(r.result().text());
      out.println();
    }
  }
}
