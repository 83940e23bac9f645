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
 * {@code browser_extract_list}, {@code _table}, {@code _links} and {@code _article}: records read by a fixed
 * traversal from the page or from a region ref of the latest observation, narrowed to the fields asked for.
 */
final class ExtractionTools {
  private static final String SCHEMA = """
      {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {
        "observation_id": {"type": "string", "minLength": 1, "description": "The latest observation, with region_ref."},
        "region_ref": {"type": "string", "pattern": "^e[0-9]+$", "description": "An element of the region; a record's link stands for its listing."},
        "fields": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 50},
        "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "Most records (default 100)."},
        "max_text_chars": {"type": "integer", "minimum": 1, "maximum": 20000, "description": "Most characters of one field (default 2000)."}},
       "additionalProperties": false}""";

  private final AgentBindings bindings;
  private final BiConsumer<ToolCall, BrowserException> failed;

  ExtractionTools(AgentBindings bindings, BiConsumer<ToolCall, BrowserException> failed) {
    this.bindings = bindings;
    this.failed = failed;
  }

  List<Tool> tools() {
    List<Tool> tools = new ArrayList<>();
    for (String kind : List.of("list", "table", "links", "article")) {
      tools.add(new BrowserTool(new ToolDescriptor("browser_extract_" + kind,
          "Extract " + kind + " records from the page, or from a region named by a ref of the latest observation.",
          SCHEMA, new ToolHints(true, false, true, true)), call -> extract(call, kind), failed));
    }
    return tools;
  }

  private ToolResult extract(ToolCall call, String kind) {
    Map<String, Object> args = call.arguments();
    String observationId = (String) args.get("observation_id");
    String region = (String) args.get("region_ref");
    int limit = BrowserTool.optionalInt(args, "limit", 1, 1000).orElse(100);
    int maxChars = BrowserTool.optionalInt(args, "max_text_chars", 1, 20_000).orElse(2000);
    Extraction e = bindings.run(call.agentSessionId(), call.cancellation(),
        lease -> lease.extract(kind, observationId, region, limit, maxChars, call.cancellation()));
    List<String> columns = e.columns();
    if (args.get("fields") instanceof List<?> wanted) {
      List<String> unknown = wanted.stream().map(String::valueOf).filter(f -> !e.columns().contains(f)).toList();
      if (!unknown.isEmpty()) {
        throw new BrowserException(ErrorCode.BROWSER_INVALID_ARGUMENT, "unknown extraction fields: "
            + String.join(", ", unknown) + "; this region offers " + String.join(", ", e.columns()), e.url(), false,
            null);
      }
      columns = wanted.stream().map(String::valueOf).toList();
    }
    List<Map<String, Object>> rows = new ArrayList<>();
    StringBuilder text = new StringBuilder(e.truncated()
        ? "Extracted " + e.rows().size() + " of " + e.total() + " " + kind + " records (truncated)"
        : "Extracted " + e.rows().size() + " " + kind + " records");
    for (int i = 0; i < e.rows().size(); i++) {
      Map<String, Object> row = new LinkedHashMap<>();
      List<String> cells = new ArrayList<>();
      for (String c : columns) {
        String v = e.rows().get(i).getOrDefault(c, "");
        row.put(c, v);
        cells.add(c + "=" + v);
      }
      rows.add(row);
      text.append('\n').append(i + 1).append(". ").append(String.join(" | ", cells));
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
    return ToolResult.text(text.toString(), structured);
  }
}
