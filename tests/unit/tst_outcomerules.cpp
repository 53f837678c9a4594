// What a write result means, read with the built-in registry's rules; what a read result
// means; and the small vocabularies of outcomes and tool classes.

#include "domain/outcome.h"
#include "domain/registryselection.h"
#include "domain/resultclassifier.h"
#include "domain/toolclass.h"
#include "domain/toolregistry.h"
#include "store/records.h"

#include <QTest>

#include <nlohmann/json.hpp>

#include <string>

using nlohmann::json;
using namespace verity;

Q_DECLARE_METATYPE(std::string)
Q_DECLARE_METATYPE(verity::Outcome)
Q_DECLARE_METATYPE(verity::ToolClass)

namespace {

// A JSON text for a bare string result, so the tables stay readable.
std::string text(const char *s)
{
    return json(s).dump();
}

} // namespace

class TestOutcomeRules : public QObject
{
    Q_OBJECT

private:
    ToolRegistry m_registry;

private slots:
    void initTestCase()
    {
        m_registry = ToolRegistry::builtIn();
        QVERIFY(!m_registry.outcomeRules().unknown.isEmpty());
        QVERIFY(!m_registry.outcomeRules().notPerformed.isEmpty());
    }

    // ---- classifyWriteResult -------------------------------------------------------------

    // Results as chat transcripts hand them over: lists of content blocks, nothing at all, and
    // results the transcript itself flags as errors. Never "performed" by default.
    void classifyTranscriptResults_data()
    {
        QTest::addColumn<std::string>("result");
        QTest::addColumn<bool>("flagged");
        QTest::addColumn<Outcome>("expected");

        QTest::newRow("blocks: declined text and an image")
                << std::string(R"([{"type":"text","text":"Refund failed: card declined"},{"type":"image"}])")
                << false << Outcome::NotPerformed;
        QTest::newRow("blocks: only an image")
                << std::string(R"([{"type":"image"}])") << false << Outcome::Unknown;
        QTest::newRow("blocks: none") << std::string("[]") << false << Outcome::Unknown;
        QTest::newRow("empty text") << text("") << false << Outcome::Unknown;
        QTest::newRow("flagged payload with an amount of 450 cents")
                << std::string(R"({"refund_id":"re_1","amount_cents":450,"status":"succeeded"})") << true
                << Outcome::Unknown;
        QTest::newRow("flagged, yet the tool says performed")
                << std::string(R"({"outcome":"performed"})") << true << Outcome::Unknown;
        QTest::newRow("flagged refusal")
                << std::string(R"({"error":"card declined"})") << true << Outcome::NotPerformed;
        QTest::newRow("flagged timeout text") << text("Error: gateway timeout") << true << Outcome::Unknown;
        QTest::newRow("an error whose payload has an amount like a status code")
                << std::string(R"({"error":"something odd","amount_cents":450})") << false
                << Outcome::Unknown;
        QTest::newRow("not issued: declined")
                << text("Refund not issued: card declined") << false << Outcome::NotPerformed;
        QTest::newRow("was not sent") << text("The message was not sent.") << false << Outcome::Unknown;
        QTest::newRow("soft failure in text") << text(R"({"success": 0})") << false << Outcome::Unknown;
        QTest::newRow("success in text")
                << text(R"({"status": "succeeded", "refund_id": "re_9"})") << false << Outcome::Performed;
        // JSON-RPC's codes for a request refused before it ran (MCP: an unknown tool, arguments
        // its schema refuses); any other error code may have come after the effect.
        QTest::newRow("JSON-RPC: unknown tool") << std::string(
                R"({"error":{"code":-32602,"message":"MCP error -32602: Tool wire_money not found"}})")
                                                << true << Outcome::NotPerformed;
        QTest::newRow("JSON-RPC: method not found")
                << std::string(R"({"error":{"code":-32601,"message":"Method not found"}})") << true
                << Outcome::NotPerformed;
        QTest::newRow("JSON-RPC: internal error")
                << std::string(R"({"error":{"code":-32603,"message":"Internal error"}})") << true
                << Outcome::Unknown;
        QTest::newRow("JSON-RPC: the SDK's timeout")
                << std::string(R"({"error":{"code":-32001,"message":"Request timed out"}})") << true
                << Outcome::Unknown;
        QTest::newRow("the MCP SDK's words for an unknown tool") << std::string(
                R"({"content":[{"type":"text","text":"MCP error -32602: Tool wire_money not found"}],"isError":true})")
                                                                 << false << Outcome::NotPerformed;
        QTest::newRow("the MCP SDK's words for an internal error") << std::string(
                R"({"content":[{"type":"text","text":"MCP error -32603: boom"}],"isError":true})")
                                                                   << false << Outcome::Unknown;
        QTest::newRow("an app's own error code that is no JSON-RPC one")
                << std::string(R"({"error":{"code":404,"message":"gateway timeout"}})") << true
                << Outcome::Unknown;
    }

    void classifyTranscriptResults()
    {
        QFETCH(std::string, result);
        QFETCH(bool, flagged);
        QFETCH(Outcome, expected);
        const json value = json::parse(result);
        const WriteVerdict verdict = classifyWriteResult(&value, m_registry.outcomeRules(), flagged);
        QVERIFY2(verdict.outcome == expected,
                 qPrintable(QStringLiteral("%1: %2").arg(outcomeId(verdict.outcome), verdict.reason)));
    }

    void classifyWrite_data()
    {
        QTest::addColumn<std::string>("result"); // JSON text of the result
        QTest::addColumn<Outcome>("expected");

        // Errors that leave the state unknown, even when they also say "failed".
        QTest::newRow("refund failed: upstream timeout")
                << std::string(R"({"error":"refund failed: upstream timeout"})") << Outcome::Unknown;
        QTest::newRow("text: request timed out")
                << text("Error: request timed out after 5000 ms") << Outcome::Unknown;
        QTest::newRow("504 Gateway Timeout")
                << std::string(R"({"error":"504 Gateway Timeout"})") << Outcome::Unknown;
        QTest::newRow("502 Bad Gateway") << std::string(R"({"error":"502 Bad Gateway"})") << Outcome::Unknown;
        QTest::newRow("status 503") << std::string(R"({"status":503})") << Outcome::Unknown;
        QTest::newRow("text: connection reset") << text("connection reset after send") << Outcome::Unknown;
        QTest::newRow("idempotency key in use")
                << std::string(R"({"error":"idempotency_key_in_use"})") << Outcome::Unknown;
        QTest::newRow("text: no response") << text("Error: no response from payments") << Outcome::Unknown;
        // MCP's CallToolResult: read by its content, its isError the transcript's own mark.
        const auto mcp = [](const std::string &text, bool isError) {
            return nlohmann::json{{"content", {{{"type", "text"}, {"text", text}}}}, {"isError", isError}}
                    .dump();
        };
        QTest::newRow("MCP: isError, timeout text") << mcp("payments timed out", true) << Outcome::Unknown;
        QTest::newRow("MCP: isError, refusal text")
                << mcp("400 Bad Request: amount over limit", true) << Outcome::NotPerformed;
        QTest::newRow("MCP: JSON text of a refund")
                << mcp(nlohmann::json{{"refund_id", "re_1"}, {"status", "succeeded"}}.dump(), false)
                << Outcome::Performed;
        QTest::newRow("MCP: structured content stating its outcome") << nlohmann::json{
                {"content", nlohmann::json::array()},
                {"structuredContent",
                 {{"outcome", "already_performed"}}}}.dump() << Outcome::AlreadyPerformed;
        QTest::newRow("MCP: the guard's held answer")
                << nlohmann::json{{"outcome", "not_performed"},
                                  {"guard", "held: repeat of call c3"},
                                  {"answer", nlohmann::json::parse(mcp("NOT SENT.", true))}}
                           .dump()
                << Outcome::NotPerformed;

        // Explicit refusals: nothing happened.
        QTest::newRow("400 Bad Request")
                << std::string(R"({"error":"400 Bad Request: item_id missing"})") << Outcome::NotPerformed;
        QTest::newRow("text: validation error")
                << text("Error: validation error: amount_cents must be positive") << Outcome::NotPerformed;
        QTest::newRow("exceeds the ceiling")
                << std::string(R"({"error":"amount 18900 exceeds the 15000 refund ceiling"})")
                << Outcome::NotPerformed;
        QTest::newRow("over the limit")
                << std::string(R"({"error":"over the limit"})") << Outcome::NotPerformed;
        QTest::newRow("text: connection refused") << text("connection refused") << Outcome::NotPerformed;
        QTest::newRow("declined, success false")
                << std::string(R"({"success":false,"message":"card declined"})") << Outcome::NotPerformed;
        QTest::newRow("status 422") << std::string(R"({"status":422})") << Outcome::NotPerformed;
        QTest::newRow("text: permission denied") << text("permission denied") << Outcome::NotPerformed;

        // An error that says neither.
        QTest::newRow("something odd")
                << std::string(R"({"success":false,"error":"something odd"})") << Outcome::Unknown;
        QTest::newRow("text: Error: something odd") << text("Error: something odd") << Outcome::Unknown;
        QTest::newRow("text: exception") << text("Unhandled exception in handler") << Outcome::Unknown;

        // Success, even with digits in ids.
        QTest::newRow("queued refund, id with 404")
                << std::string(R"({"refund_id":"re_4041","status":"queued"})") << Outcome::Performed;
        QTest::newRow("success with 4xx-looking amount")
                << std::string(R"({"refund_id":"re_1","amount_cents":404,"status":"ok"})")
                << Outcome::Performed;
        QTest::newRow("success with 503-looking id")
                << std::string(R"({"pickup_id":"PU-503","status":"scheduled"})") << Outcome::Performed;
        QTest::newRow("status 200") << std::string(R"({"status":200,"refund_id":"re_9"})")
                                    << Outcome::Performed;
        QTest::newRow("success true") << std::string(R"({"success":true})") << Outcome::Performed;
        QTest::newRow("text: refund queued") << text("Refund re_123 queued") << Outcome::Performed;
        QTest::newRow("text: refund queued, id re_4041")
                << text("Refund re_4041 queued") << Outcome::Performed;
        QTest::newRow("text: pickup PU-404 scheduled")
                << text("Pickup PU-404 scheduled for 2026-03-18") << Outcome::Performed;
        QTest::newRow("success with an empty errors list")
                << std::string(R"({"refund_id":"re_1","status":"queued","errors":[]})") << Outcome::Performed;
        QTest::newRow("refusal with a 503-looking request id")
                << std::string(R"({"error":"validation failed: amount_cents","request_id":"req-503"})")
                << Outcome::NotPerformed;

        // Structured outcomes are taken as stated.
        QTest::newRow("stated performed") << std::string(R"({"outcome":"performed"})") << Outcome::Performed;
        QTest::newRow("stated already_performed")
                << std::string(R"({"outcome":"already_performed"})") << Outcome::AlreadyPerformed;
        QTest::newRow("stated not_performed")
                << std::string(R"({"outcome":"not_performed"})") << Outcome::NotPerformed;
        QTest::newRow("stated unknown") << std::string(R"({"outcome":"unknown"})") << Outcome::Unknown;
        QTest::newRow("stated performed beats error words")
                << std::string(R"({"outcome":"performed","error":"504 timeout on retry"})")
                << Outcome::Performed;
        QTest::newRow("stated not_performed beats timeout words")
                << std::string(R"({"outcome":"not_performed","error":"upstream timeout"})")
                << Outcome::NotPerformed;
        QTest::newRow("stated already_performed with error")
                << std::string(R"({"outcome":"already_performed","error":"duplicate"})")
                << Outcome::AlreadyPerformed;
        QTest::newRow("stated failed") << std::string(R"({"outcome":"failed"})") << Outcome::Unknown;
        QTest::newRow("stated Performed (case)")
                << std::string(R"({"outcome":"Performed"})") << Outcome::Unknown;
        QTest::newRow("stated number") << std::string(R"({"outcome":1})") << Outcome::Unknown;
        QTest::newRow("stated null") << std::string(R"({"outcome":null,"status":"ok"})") << Outcome::Unknown;

        // No result at all.
        QTest::newRow("JSON null") << std::string("null") << Outcome::Unknown;
    }

    void classifyWrite()
    {
        QFETCH(std::string, result);
        QFETCH(Outcome, expected);
        const json value = json::parse(result);
        const WriteVerdict verdict = classifyWriteResult(&value, m_registry.outcomeRules());
        QVERIFY2(verdict.outcome == expected,
                 qPrintable(QStringLiteral("got %1 (%2), expected %3")
                                    .arg(outcomeId(verdict.outcome), verdict.reason, outcomeId(expected))));
        QVERIFY(!verdict.reason.isEmpty());
    }

    void noResultIsUnknown()
    {
        const WriteVerdict verdict = classifyWriteResult(nullptr, m_registry.outcomeRules());
        QCOMPARE(verdict.outcome, Outcome::Unknown);
        QVERIFY(!verdict.reason.isEmpty());
    }

    // The reason a support agent reads on the card: which rule of the registry matched, by its
    // name, and the words of the result it matched; or, with no rule, what was seen. Never a
    // regular expression.
    void reasonInPlainWords_data()
    {
        QTest::addColumn<QString>("profile");
        QTest::addColumn<std::string>("result");
        QTest::addColumn<bool>("flagged");
        QTest::addColumn<Outcome>("expected");
        QTest::addColumn<QString>("reason");

        const QString builtIn = QStringLiteral("default");
        const auto rule = [](const char *name, const char *words) {
            return QStringLiteral("the registry's %1 rule matched \"%2\"")
                    .arg(QString::fromUtf8(name), QString::fromUtf8(words));
        };

        // Each rule of the built-in registry, in its order: unknown first, then the refusals.
        QTest::newRow("timeout") << builtIn << std::string(R"({"error":"refund failed: upstream timeout"})")
                                 << false << Outcome::Unknown << rule("timeout", "upstream timeout");
        QTest::newRow("upstream error")
                << builtIn << std::string(R"({"error":"upstream unavailable"})") << false << Outcome::Unknown
                << rule("upstream error", "upstream unavailable");
        QTest::newRow("gateway error") << builtIn << text("Error: 502 Bad Gateway") << false
                                       << Outcome::Unknown << rule("gateway error", "502 Bad Gateway");
        QTest::newRow("connection reset") << builtIn << text("Error: connection reset") << false
                                          << Outcome::Unknown << rule("connection reset", "connection reset");
        QTest::newRow("5xx gateway status") << builtIn << std::string(R"({"status":503})") << false
                                            << Outcome::Unknown << rule("5xx gateway status", "503");
        QTest::newRow("key in use") << builtIn << std::string(R"({"error":"idempotency_key_in_use"})")
                                    << false << Outcome::Unknown
                                    << rule("key in use", "idempotency_key_in_use");
        QTest::newRow("no response") << builtIn << text("Error: no response from payments") << false
                                     << Outcome::Unknown << rule("no response", "no response from payments");
        QTest::newRow("validation error")
                << builtIn << text("Error: validation error: amount_cents must be positive") << false
                << Outcome::NotPerformed << rule("validation error", "validation error");
        QTest::newRow("invalid input") << builtIn << std::string(R"({"error":"invalid item_id"})") << false
                                       << Outcome::NotPerformed << rule("invalid input", "invalid item_id");
        QTest::newRow("4xx status") << builtIn << std::string(R"({"status":422})") << false
                                    << Outcome::NotPerformed << rule("4xx status", "422");
        QTest::newRow("over a limit") << builtIn << std::string(R"({"error":"over the limit"})") << false
                                      << Outcome::NotPerformed << rule("over a limit", "over the limit");
        QTest::newRow("exceeded limit")
                << builtIn << std::string(R"({"error":"amount 18900 exceeds the 15000 refund ceiling"})")
                << false << Outcome::NotPerformed
                << rule("exceeded limit", "amount 18900 exceeds the 15000 refund ceiling");
        QTest::newRow("refusal") << builtIn << text("connection refused") << false << Outcome::NotPerformed
                                 << rule("refusal", "connection refused");
        QTest::newRow("rejection") << builtIn << std::string(R"({"error":"refund rejected by the bank"})")
                                   << false << Outcome::NotPerformed
                                   << rule("rejection", "refund rejected by the bank");
        QTest::newRow("decline") << builtIn << std::string(R"({"success":false,"message":"card declined"})")
                                 << false << Outcome::NotPerformed << rule("decline", "card declined");
        QTest::newRow("not allowed") << builtIn
                                     << std::string(R"({"error":"refunds are not allowed after 90 days"})")
                                     << false << Outcome::NotPerformed
                                     << rule("not allowed", "refunds are not allowed after 90 days");
        QTest::newRow("denial") << builtIn << text("permission denied") << false << Outcome::NotPerformed
                                << rule("denial", "permission denied");
        QTest::newRow("shortfall") << builtIn << std::string(R"({"error":"insufficient funds"})") << false
                                   << Outcome::NotPerformed << rule("shortfall", "insufficient funds");

        // The quote is the phrase the match is in when that is short; in a long one, the match
        // widened to whole words, with a word of meaning either side. On one line, and short.
        QTest::newRow("a 4xx status and its words")
                << builtIn << std::string(R"({"error":"400 Bad Request: item_id missing"})") << false
                << Outcome::NotPerformed << rule("4xx status", "400 Bad Request");
        QTest::newRow("a match inside a word, in a long phrase")
                << builtIn
                << text("Error: the nightly batch job for the seller payouts hit repeated timeouts, then "
                        "gave up")
                << false << Outcome::Unknown << rule("timeout", "repeated timeouts");
        QTest::newRow("little words are passed to a word of meaning")
                << QStringLiteral("tau-retail")
                << text("Error: The number of items to be exchanged should match the number of new items")
                << true << Outcome::NotPerformed << rule("tool error", "Error: The number");
        QTest::newRow("a line is a phrase")
                << builtIn << std::string(R"([{"type":"text","text":"Error:\nupstream\nclosed"}])") << false
                << Outcome::Unknown << rule("upstream error", "upstream");
        QTest::newRow("τ: a refusal")
                << QStringLiteral("tau-retail") << text("Error: Insufficient gift card balance") << true
                << Outcome::NotPerformed << rule("tool error", "Error: Insufficient gift card balance");
        QTest::newRow("τ: a rule that matches from the start")
                << QStringLiteral("tau-airline") << text("Error: payment service timed out") << true
                << Outcome::Unknown << rule("timeout", "Error: payment service timed out");
        QTest::newRow("τ: a long match keeps its first and last words")
                << QStringLiteral("tau-airline")
                << text("Error: the reservation ZFA04Y could not be changed because the booking system sent "
                        "no "
                        "response in time")
                << true << Outcome::Unknown
                << rule("no response", "Error: the reservation … sent no response in time");

        // No rule: what was seen.
        QTest::newRow("says done") << builtIn << text("Refund re_123 queued") << false << Outcome::Performed
                                   << QStringLiteral("the result says it was done: \"Refund re_123 queued\"");
        QTest::newRow("text without an error")
                << builtIn << text("Noted for order SU-1") << false << Outcome::Performed
                << QStringLiteral("the result shows no error: \"Noted for order SU-1\"");
        QTest::newRow("structured success")
                << builtIn << std::string(R"({"refund_id":"re_1","status":"queued"})") << false
                << Outcome::Performed << QStringLiteral("the result shows no error");
        QTest::newRow("true") << builtIn << std::string("true") << false << Outcome::Performed
                              << QStringLiteral("the tool returned true");
        QTest::newRow("an error no rule places")
                << builtIn << std::string(R"({"success":false,"error":"something odd"})") << false
                << Outcome::Unknown
                << QStringLiteral("the error \"something odd\" does not say it was refused, so "
                                  "whether it happened is unknown");
        QTest::newRow("flagged, no rule places it")
                << builtIn << text("Error: something odd") << true << Outcome::Unknown
                << QStringLiteral(
                           "the transcript marks \"Error: something odd\" an error that does not say it was "
                           "refused, so whether it happened is unknown");
        QTest::newRow("false")
                << builtIn << std::string("false") << false << Outcome::Unknown
                << QStringLiteral("the tool returned false, which does not say it was refused, so whether it "
                                  "happened is unknown");
        QTest::newRow("an error with no message")
                << builtIn << std::string(R"({"success":false})") << false << Outcome::Unknown
                << QStringLiteral("the result says it did not succeed, and gives no message");
        QTest::newRow("flagged, no message")
                << builtIn << std::string(R"({"refund_id":"re_1"})") << true << Outcome::Unknown
                << QStringLiteral("the transcript marks the result an error, and it gives no "
                                  "message");
        QTest::newRow("no result") << builtIn << std::string("null") << false << Outcome::Unknown
                                   << QStringLiteral("no result was recorded for this call");
        QTest::newRow("empty text") << builtIn << text("  ") << false << Outcome::Unknown
                                    << QStringLiteral("the tool returned empty text");
        QTest::newRow("only an image")
                << builtIn << std::string(R"([{"type":"image"}])") << false << Outcome::Unknown
                << QStringLiteral("the result has no text to read");
        QTest::newRow("stated already performed")
                << builtIn << std::string(R"({"outcome":"already_performed"})") << false
                << Outcome::AlreadyPerformed << QStringLiteral("the tool stated it was already performed");
        QTest::newRow("stated not performed")
                << builtIn << std::string(R"({"outcome":"not_performed"})") << false << Outcome::NotPerformed
                << QStringLiteral("the tool stated it was not performed");
        QTest::newRow("stated unknown")
                << builtIn << std::string(R"({"outcome":"unknown"})") << false << Outcome::Unknown
                << QStringLiteral("the tool stated its outcome is unknown");
        QTest::newRow("stated something else")
                << builtIn << std::string(R"({"outcome":"failed"})") << false << Outcome::Unknown
                << QStringLiteral("the tool stated \"failed\", which is not one of the four "
                                  "outcomes");
        QTest::newRow("stated performed, flagged")
                << builtIn << std::string(R"({"outcome":"performed"})") << true << Outcome::Unknown
                << QStringLiteral("the tool stated it was performed, but the transcript "
                                  "marks the result an error");
    }

    void reasonInPlainWords()
    {
        QFETCH(QString, profile);
        QFETCH(std::string, result);
        QFETCH(bool, flagged);
        QFETCH(Outcome, expected);
        QFETCH(QString, reason);
        const Expected<ToolRegistry> registry = builtInProfile(profile);
        QVERIFY2(registry.ok(), qPrintable(profile));
        const json value = json::parse(result);
        const WriteVerdict verdict = classifyWriteResult(&value, registry->outcomeRules(), flagged);
        QCOMPARE(verdict.reason, reason);
        QCOMPARE(verdict.outcome, expected);
    }

    // The unknown rules are looked at before the refusals, whichever order the words come in.
    void unknownRulesComeFirst_data()
    {
        QTest::addColumn<std::string>("result");
        QTest::newRow("refused then timeout")
                << std::string(R"({"error":"request refused by proxy after upstream timeout"})");
        QTest::newRow("invalid then 504") << text("Error: invalid gateway response (504)");
        QTest::newRow("400 and reset") << std::string(R"({"error":"400 then connection reset"})");
    }

    void unknownRulesComeFirst()
    {
        QFETCH(std::string, result);
        const json value = json::parse(result);
        QCOMPARE(classifyWriteResult(&value, m_registry.outcomeRules()).outcome, Outcome::Unknown);
    }

    void rulesAreCaseInsensitive()
    {
        const json value = std::string("CONNECTION REFUSED");
        QCOMPARE(classifyWriteResult(&value, m_registry.outcomeRules()).outcome, Outcome::NotPerformed);
        const json timeout = json{{"error", "UPSTREAM TIMEOUT"}};
        QCOMPARE(classifyWriteResult(&timeout, m_registry.outcomeRules()).outcome, Outcome::Unknown);
    }

    // Without any rules, an error can only be Unknown, and success stays success.
    void emptyRules_data()
    {
        QTest::addColumn<std::string>("result");
        QTest::addColumn<Outcome>("expected");
        QTest::newRow("refused text") << text("Error: connection refused") << Outcome::Unknown;
        QTest::newRow("400 object") << std::string(R"({"error":"400 Bad Request"})") << Outcome::Unknown;
        QTest::newRow("success text") << text("Refund re_123 queued") << Outcome::Performed;
        QTest::newRow("success object") << std::string(R"({"refund_id":"re_1"})") << Outcome::Performed;
    }

    void emptyRules()
    {
        QFETCH(std::string, result);
        QFETCH(Outcome, expected);
        const json value = json::parse(result);
        QCOMPARE(classifyWriteResult(&value, OutcomeRules()).outcome, expected);
    }

    // ---- resultLooksLikeError (reads) -----------------------------------------------------

    void readLooksLikeError_data()
    {
        QTest::addColumn<std::string>("result");
        QTest::addColumn<bool>("isError");

        QTest::newRow("order") << std::string(R"({"order_id":"SU-88421","status":"delivered"})") << false;
        QTest::newRow("order, id with 404")
                << std::string(R"({"order_id":"SU-404","total_cents":40400})") << false;
        QTest::newRow("error key") << std::string(R"({"error":"not found"})") << true;
        QTest::newRow("errors list") << std::string(R"({"errors":["bad id"]})") << true;
        QTest::newRow("error null") << std::string(R"({"error":null,"order_id":"SU-1"})") << false;
        QTest::newRow("error false") << std::string(R"({"error":false})") << false;
        QTest::newRow("error empty text") << std::string(R"({"error":""})") << false;
        QTest::newRow("is_error true") << std::string(R"({"is_error":true})") << true;
        QTest::newRow("exception") << std::string(R"({"exception":"KeyError"})") << true;
        QTest::newRow("success false") << std::string(R"({"success":false})") << true;
        QTest::newRow("success true") << std::string(R"({"success":true})") << false;
        QTest::newRow("ok 0") << std::string(R"({"ok":0})") << true;
        QTest::newRow("ok 1") << std::string(R"({"ok":1})") << false;
        QTest::newRow("status 404") << std::string(R"({"status":404})") << true;
        QTest::newRow("status_code 500") << std::string(R"({"status_code":500})") << true;
        QTest::newRow("http_status 200") << std::string(R"({"http_status":200})") << false;
        // The boundary both ways: 400 is the first error status, 399 is not one.
        QTest::newRow("status 400") << std::string(R"({"status":400})") << true;
        QTest::newRow("status 399") << std::string(R"({"status":399})") << false;
        QTest::newRow("status failed") << std::string(R"({"status":"FAILED"})") << true;
        QTest::newRow("status error") << std::string(R"({"status":"error"})") << true;
        QTest::newRow("status shipped") << std::string(R"({"status":"shipped"})") << false;
        QTest::newRow("text error") << text("Error: order not found") << true;
        QTest::newRow("text failed") << text("lookup failed") << true;
        QTest::newRow("text timed out") << text("request timed out") << true;
        QTest::newRow("text timeout") << text("Timeout while reading") << true;
        QTest::newRow("text order") << text("Order SU-88421 delivered on 2026-03-14") << false;
        QTest::newRow("text with errorless word") << text("terrorist-free zone") << false;
        QTest::newRow("null") << std::string("null") << true;
        QTest::newRow("false") << std::string("false") << true;
        QTest::newRow("true") << std::string("true") << false;
        QTest::newRow("array") << std::string(R"([{"id":1}])") << false;
        QTest::newRow("errors, empty list") << std::string(R"({"order_id":"SU-1","errors":[]})") << false;
    }

    void readLooksLikeError()
    {
        QFETCH(std::string, result);
        QFETCH(bool, isError);
        QCOMPARE(resultLooksLikeError(json::parse(result)), isError);
    }

    // ---- outcome.h ------------------------------------------------------------------------

    void outcomes_data()
    {
        QTest::addColumn<Outcome>("outcome");
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("label");
        QTest::addColumn<int>("severity");
        QTest::addColumn<bool>("needsEscalation");
        QTest::addColumn<bool>("allowsRepeat");

        QTest::newRow("performed") << Outcome::Performed << QStringLiteral("performed")
                                   << QStringLiteral("Performed") << 1 << false << false;
        QTest::newRow("already performed") << Outcome::AlreadyPerformed << QStringLiteral("already_performed")
                                           << QStringLiteral("Already performed") << 2 << false << false;
        QTest::newRow("not performed") << Outcome::NotPerformed << QStringLiteral("not_performed")
                                       << QStringLiteral("Not performed") << 3 << false << true;
        QTest::newRow("unknown") << Outcome::Unknown << QStringLiteral("unknown")
                                 << QStringLiteral("Unknown: do not retry") << 4 << true << false;
    }

    void outcomes()
    {
        QFETCH(Outcome, outcome);
        QFETCH(QString, id);
        QFETCH(QString, label);
        QFETCH(int, severity);
        QFETCH(bool, needsEscalation);
        QFETCH(bool, allowsRepeat);

        QCOMPARE(outcomeId(outcome), id);
        QCOMPARE(outcomeFromId(id), std::optional<Outcome>(outcome));
        QCOMPARE(outcomeLabel(outcome), label);
        QCOMPARE(outcomeSeverity(outcome), severity);
        QCOMPARE(outcomeFromSeverity(severity), std::optional<Outcome>(outcome));
        QCOMPARE(outcomeNeedsEscalation(outcome), needsEscalation);
        QCOMPARE(outcomeAllowsRepeatWithSameKey(outcome), allowsRepeat);
    }

    void allOutcomesListed()
    {
        QCOMPARE(int(std::size(allOutcomes)), 4);
        for (Outcome outcome : allOutcomes)
            QCOMPARE(outcomeFromId(outcomeId(outcome)), std::optional<Outcome>(outcome));
    }

    void unknownOutcomeIds_data()
    {
        QTest::addColumn<QString>("id");
        QTest::newRow("empty") << QString();
        QTest::newRow("failed") << QStringLiteral("failed");
        QTest::newRow("label, not id") << QStringLiteral("Performed");
        QTest::newRow("trailing space") << QStringLiteral("unknown ");
        QTest::newRow("hyphen") << QStringLiteral("already-performed");
    }

    void unknownOutcomeIds()
    {
        QFETCH(QString, id);
        QVERIFY(!outcomeFromId(id).has_value());
    }

    // A settlement outranks what the tool reported, except that an answer that the write took
    // effect outranks a settlement that it did not.
    void knownOutcomeOfASettledCall_data()
    {
        QTest::addColumn<Outcome>("reported");
        QTest::addColumn<int>("settled"); // a Resolution, or -1 for none
        QTest::addColumn<Outcome>("known");
        QTest::addColumn<bool>("contradicted");
        const int none = -1;
        const int performed = int(Resolution::Performed);
        const int notPerformed = int(Resolution::NotPerformed);
        QTest::newRow("unknown, unsettled") << Outcome::Unknown << none << Outcome::Unknown << false;
        QTest::newRow("unknown, settled performed")
                << Outcome::Unknown << performed << Outcome::Performed << false;
        QTest::newRow("unknown, settled not performed")
                << Outcome::Unknown << notPerformed << Outcome::NotPerformed << false;
        QTest::newRow("refused, settled performed")
                << Outcome::NotPerformed << performed << Outcome::Performed << false;
        QTest::newRow("performed after it was settled not performed")
                << Outcome::Performed << notPerformed << Outcome::Performed << true;
        QTest::newRow("already performed after it was settled not performed")
                << Outcome::AlreadyPerformed << notPerformed << Outcome::AlreadyPerformed << true;
    }

    void knownOutcomeOfASettledCall()
    {
        QFETCH(Outcome, reported);
        QFETCH(int, settled);
        QFETCH(Outcome, known);
        QFETCH(bool, contradicted);
        ToolCallRow call;
        call.outcome = reported;
        if (settled >= 0)
            call.resolution = Resolution(settled);
        QCOMPARE(knownOutcome(call), std::optional<Outcome>(known));
        QCOMPARE(settlementContradicted(call), contradicted);
    }

    void severityZeroIsNoWrite()
    {
        QVERIFY(!outcomeFromSeverity(0).has_value());
        QVERIFY(!outcomeFromSeverity(5).has_value());
        QVERIFY(!outcomeFromSeverity(-1).has_value());
    }

    // ---- toolclass.h ----------------------------------------------------------------------

    void toolClasses_data()
    {
        QTest::addColumn<ToolClass>("toolClass");
        QTest::addColumn<QString>("id");
        QTest::addColumn<bool>("write");
        QTest::addColumn<bool>("autoRetry");

        QTest::newRow("read") << ToolClass::Read << QStringLiteral("read") << false << true;
        QTest::newRow("money") << ToolClass::WriteMoney << QStringLiteral("write_money") << true << false;
        QTest::newRow("costly") << ToolClass::WriteCostly << QStringLiteral("write_costly") << true << false;
        QTest::newRow("irreversible")
                << ToolClass::WriteIrreversible << QStringLiteral("write_irreversible") << true << false;
        QTest::newRow("wasteful") << ToolClass::WriteWasteful << QStringLiteral("write_wasteful") << true
                                  << false;
        QTest::newRow("unclassified")
                << ToolClass::Unclassified << QStringLiteral("unclassified") << false << false;
    }

    void toolClasses()
    {
        QFETCH(ToolClass, toolClass);
        QFETCH(QString, id);
        QFETCH(bool, write);
        QFETCH(bool, autoRetry);

        QCOMPARE(toolClassId(toolClass), id);
        QCOMPARE(toolClassFromId(id), std::optional<ToolClass>(toolClass));
        QVERIFY(!toolClassLabel(toolClass).isEmpty());
        QCOMPARE(isWrite(toolClass), write);
        QCOMPARE(mayRetryAutomatically(toolClass), autoRetry);
    }

    void unclassifiedIsNeitherReadNorRetryable()
    {
        QVERIFY(ToolClass::Unclassified != ToolClass::Read);
        QVERIFY(!isWrite(ToolClass::Unclassified));
        QVERIFY(!mayRetryAutomatically(ToolClass::Unclassified));
        QVERIFY(toolClassLabel(ToolClass::Unclassified) != toolClassLabel(ToolClass::Read));
    }

    void unknownToolClassIds()
    {
        QVERIFY(!toolClassFromId(QStringLiteral("write")).has_value());
        QVERIFY(!toolClassFromId(QStringLiteral("Read")).has_value());
        QVERIFY(!toolClassFromId(QString()).has_value());
    }
};

QTEST_GUILESS_MAIN(TestOutcomeRules)
#include "tst_outcomerules.moc"
