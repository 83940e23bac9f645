package dev.periscope.examples.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.mcp.client.McpClient;
import dev.langchain4j.model.chat.request.json.JsonEnumSchema;
import dev.langchain4j.service.Result;
import dev.langchain4j.service.tool.ToolExecution;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example against a real {@code harness mcp --http} process with the real plugin package and a
 * real Chromium: LangChain4j's MCP client, its tool provider and its AI service, with {@link
 * ScriptedChatModel} in the model's place, on a shop served from 127.0.0.1.
 */
class BrowserAgentTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir static Path dir;
  static ShopSite shop;
  static HarnessServer server;

  @BeforeAll
  static void start() throws Exception {
    shop = new ShopSite();
    server = new HarnessServer(dir);
  }

  @AfterAll
  static void stop() throws Exception {
    shop.close();
    if (server != null) {
      List<String> left = server.stop();
      System.out.println("processes the harness started: " + server.started());
      assertEquals(List.of(), left, "processes the harness left running:\n" + server.err());
    }
  }

  @Test
  void theAgentOpensTheShopAddsToCartAndSaysWhatThePageShows() throws Exception {
    ScriptedChatModel model = new ScriptedChatModel();
    Result<String> result;
    try (BrowserAgent agent =
        BrowserAgent.connect(server.endpoint, server.token, "lc4j-shopper", model)) {
      result =
          agent.run(
              "Open "
                  + shop.url()
                  + " and click the button \"Add to cart\", then tell me what the page shows.");
    }

    System.out.println("The agent's answer: " + result.content());
    System.out.println(
        "What LangChain4j gave the model after browser_open: " + model.toolResultsSeen().get(0));
    List<ToolExecution> calls = result.toolExecutions();
    assertEquals(
        List.of("browser_open", "browser_click"),
        calls.stream().map(c -> c.request().name()).toList(),
        result.content());
    assertEquals(1, shop.added(1), "the click reached the shop's server");
    assertTrue(result.content().contains("Cart: 1 item, $48.00"), result.content());
    assertTrue(!result.content().contains("Your cart is empty"), result.content());

    // What LangChain4j handed the model after browser_open: the structured content, as JSON.
    JsonNode opened = JSON.readTree(model.toolResultsSeen().get(0));
    assertTrue(opened.has("transition") && opened.has("observation"), opened.toString());
    // The click names that observation and the ref it gave the button: found there, not known.
    JsonNode click = JSON.readTree(calls.get(1).request().arguments());
    assertEquals(opened.at("/observation/id").asText(), click.path("observation_id").asText());
    String buttonRef = null;
    for (JsonNode e : opened.at("/observation/elements")) {
      if (e.path("name").asText().equals("Add to cart")) {
        buttonRef = e.path("ref").asText();
      }
    }
    assertEquals(buttonRef, click.path("element_ref").asText(), opened.toString());
    assertTrue(
        model.toolsOffered().get(0).containsAll(List.of("browser_open", "browser_click")),
        model.toolsOffered().get(0).toString());
    // The Periscope-Session header named the agent session.
    assertTrue(
        server.said("MCP session opened for agent session lc4j-shopper", Duration.ofSeconds(5)),
        server.err());
  }

  @Test
  void aRefusalReachesTheModelAsTheStructuredError() throws Exception {
    ScriptedChatModel model = new ScriptedChatModel();
    String url = shop.url().replace("http://", "http://someone:hunter2@");
    Result<String> result;
    try (BrowserAgent agent =
        BrowserAgent.connect(server.endpoint, server.token, "lc4j-refused", model)) {
      result = agent.run("Open " + url + " and click the button \"Add to cart\".");
    }
    // LangChain4j hands the model the failure's structured content: the error as data.
    assertEquals(1, model.toolResultsSeen().size(), model.toolResultsSeen().toString());
    JsonNode error = JSON.readTree(model.toolResultsSeen().get(0)).path("error");
    assertEquals("BROWSER_INVALID_URL", error.path("code").asText(), error.toString());
    assertEquals(false, error.path("retryable").asBoolean(true), error.toString());
    assertTrue(result.toolExecutions().get(0).hasFailed());
    assertTrue(!model.toolResultsSeen().get(0).contains("hunter2"), error.toString());
    assertTrue(
        result.content().startsWith("browser_open did not give me an observation: URLs with"),
        result.content());
  }

  @Test
  void everyToolSchemaKeepsItsKindsEnumsAndDescriptionsThroughLangChain4j() throws Exception {
    List<ToolSpecification> specifications;
    try (McpClient mcp = BrowserAgent.mcpClient(server.endpoint, server.token, "lc4j-schemas")) {
      specifications = mcp.listTools();
    }
    JsonNode raw = RawToolsList.fetch(server.endpoint, server.token);
    SchemaComparison c = SchemaComparison.of(raw, specifications);
    System.out.println(
        "LangChain4j converted "
            + specifications.size()
            + " tools, "
            + c.compared
            + " schema elements; bounds it has no place for: "
            + c.dropped);
    assertEquals(List.of(), c.mismatches, "what LangChain4j changed");
    assertEquals(raw.size(), specifications.size());
    assertTrue(c.compared > 100, "compared " + c.compared);
    // One of the enums that once had no type, and became an empty object in LangChain4j.
    ToolSpecification click =
        specifications.stream().filter(s -> s.name().equals("browser_click")).findFirst().get();
    assertInstanceOf(JsonEnumSchema.class, click.parameters().properties().get("button"));
  }
}
