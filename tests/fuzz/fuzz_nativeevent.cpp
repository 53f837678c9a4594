// libFuzzer harness: one line of Verity's own JSONL format (models/import/nativeevent.h).
// Any bytes must come back as an event or an error, never a crash.

#include "import/nativeevent.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray line(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    const verity::Expected<verity::NativeEvent> event = verity::parseNativeEvent(line);
    if (event)
        (void)event->fingerprint.size();
    else
        (void)event.message().size();
    return 0;
}
