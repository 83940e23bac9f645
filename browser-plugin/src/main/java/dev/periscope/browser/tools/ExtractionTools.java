package dev.periscope.browser.tools;

import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Extraction;
import dev.periscope.api.tool.Tool;
import dev.periscope.api.tool.ToolCall;
import dev.periscope.api.tool.ToolDescriptor;
import dev.periscope.api.tool.ToolHints;
import dev.periscope.api.tool.ToolResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * {@code browser_extract_list}, {@code _table}, {@code _links} and {@code _article}: records read
 * by a fixed traversal from the page or from a region ref of the latest observation, narrowed to
 * the fields asked for.
 */
final class ExtractionTools {
  private static final List<Param> PARAMS =
      List.of(
          Param.string("observation_id", "The latest observation, with region_ref."),
          Param.pattern(
              "region_ref",
              "^[eg][0-9]+$",
              "An element of the region; a record's link, or its ref, stands for its listing."),
          Param.strings("fields", 1, 50, null),
          Param.integer("limit", 1, 1000, "Most records (default 100)."),
          Param.integer(
              "max_text_chars", 1, 20_000, "Most characters of one field (default 2000)."));

  private final AgentBindings bindings;
  private final PageFence.Sessions fences;
  private final BiConsumer<ToolCall, BrowserException> failed;

  ExtractionTools(
      AgentBindings bindings,
      PageFence.Sessions fences,
      BiConsumer<ToolCall, BrowserException> failed) {
    this.bindings = bindings;
    this.fences = fences;
    this.failed = failed;
  }

  List<Tool> tools() {
    List<Tool> tools = new ArrayList<>();
    for (String kind : List.of("list", "table", "links", "article")) {
      tools.add(
          new BrowserTool(
              new ToolDescriptor(
                  "browser_extract_" + kind,
                  "Extract "
                      + kind
                      + " records from the page, or from a region named by a ref of the latest observation.",
                  Param.schema(PARAMS),
                  new ToolHints(true, false, true, true)),
              call -> extract(call, kind),
              failed));
    }
    return tools;
  }

  private ToolResult extract(ToolCall call, String kind) {
    Arguments args = new Arguments(call.arguments());
    String observationId = args.optionalString("observation_id");
    String region = args.optionalString("region_ref");
    int limit = args.integer("limit", 1, 1000).orElse(100);
    int maxChars = args.integer("max_text_chars", 1, 20_000).orElse(2000);
    Extraction e =
        bindings.run(
            call.agentSessionId(),
            call.cancellation(),
            lease ->
                lease.extract(kind, observationId, region, limit, maxChars, call.cancellation()));
    List<String> columns = e.columns();
    java.util.Optional<List<String>> fields = args.optionalStrings("fields");
    if (fields.isPresent()) {
      // A column is named as the model saw it: a name that held a fence marker, altered.
      List<String> wanted =
          fields.get().stream()
              .map(
                  f ->
                      e.columns().contains(f)
                          ? f
                          : e.columns().stream()
                              .filter(c -> PageFence.neutralize(c).equals(f))
                              .findFirst()
                              .orElse(f))
              .toList();
      List<String> unknown = wanted.stream().filter(f -> !e.columns().contains(f)).toList();
      if (!unknown.isEmpty()) {
        throw BrowserException.of(
                ErrorCode.BROWSER_INVALID_ARGUMENT,
                "unknown extraction fields: "
                    + String.join(", ", unknown)
                    + "; this region offers "
                    + String.join(", ", e.columns()))
            .withUrl(e.url());
      }
      columns = wanted;
    }
    List<Map<String, Object>> rows = new ArrayList<>();
    StringBuilder heading =
        new StringBuilder(
            e.truncated()
                ? "Extracted "
                    + e.rows().size()
                    + " of "
                    + e.total()
                    + " "
                    + kind
                    + " records (truncated)"
                : "Extracted " + e.rows().size() + " " + kind + " records");
    // The records are the page's: they go inside the fence, one per line as before.
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < e.rows().size(); i++) {
      Map<String, Object> row = new LinkedHashMap<>();
      List<String> cells = new ArrayList<>();
      for (String c : columns) {
        String v = e.rows().get(i).getOrDefault(c, "");
        row.put(c, v);
        cells.add(c + "=" + v);
      }
      rows.add(row);
      text.append(i + 1).append(". ").append(String.join(" | ", cells)).append('\n');
    }
    Map<String, Object> structured = new LinkedHashMap<>();
    structured.put("kind", kind);
    structured.put("url", e.url());
    if (e.observationId() != null) {
      structured.put("observation_id", e.observationId());
    }
    structured.put("columns", columns);
    structured.put("rows", rows);
    structured.put("total", e.total());
    structured.put("truncated", e.truncated());
    PageFence fence = fences.of(call.agentSessionId());
    if (!text.isEmpty()) {
      heading.append('\n').append(fence.around(text.toString()));
    }
    return ToolResult.text(heading.toString(), BrowserTools.fenced(fence, structured));
  }
}
