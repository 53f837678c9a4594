// libFuzzer harness: the τ-bench (v1) trajectory adapter (models/import/formats/taubench.h), on any JSON value it
// recognises, then the conversation read into a ticket's events. Its own corpus, so the fuzzer
// learns this format's shape rather than the dispatch's.

#include "domain/jsontext.h"
#include "import/conversationevents.h"
#include "import/formats/taubench.h"
#include "import/transcriptformat.h"

#include <cstddef>
#include <cstdint>

using nlohmann::json;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    // As the reader does: nothing deeper than the nesting limit reaches an adapter.
    const char *text = reinterpret_cast<const char *>(data);
    if (verity::jsonNestingDepth(text, text + size) > verity::maxJsonNesting)
        return 0;
    const json value = json::parse(data, data + size, nullptr, false);
    if (value.is_discarded() || !verity::looksLikeTauV1Trajectory(value))
        return 0;
    const verity::ConversationContext context{QStringLiteral("fuzz"), 1, QString()};
    const verity::Expected<verity::Conversation> conversation = verity::readTauV1Trajectory(value, context);
    if (conversation)
        (void)verity::conversationUnit(*conversation, verity::formats::tauV1, 0);
    return 0;
}
