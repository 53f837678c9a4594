// libFuzzer harness: the OTLP/JSON trace adapter (models/import/formats/otlptraces.h), on any
// JSON value it recognises, then each conversation read into a ticket's events. Its own corpus,
// so the fuzzer learns the shape of a trace export rather than the dispatch's.

#include "fuzzinput.h"
#include "import/conversationevents.h"
#include "import/formats/otlptraces.h"
#include "import/transcriptformat.h"

#include <cstddef>
#include <cstdint>

using nlohmann::json;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::optional<json> input = verity::fuzz::parsedInput(data, size);
    if (!input || !verity::looksLikeOtlpTraces(*input))
        return 0;
    const json &value = *input;
    // The reader's first pass, then the read with what it gathered.
    QHash<QString, QString> traces;
    verity::collectTraceConversations(value, traces);
    verity::ConversationContext context{QStringLiteral("fuzz"), 1, QString()};
    context.traceConversations = &traces;
    for (const verity::Expected<verity::Conversation> &conversation :
         verity::readOtlpTraces(value, context)) {
        if (conversation)
            (void)verity::conversationUnit(*conversation, verity::formats::otlp, 0);
    }
    return 0;
}
