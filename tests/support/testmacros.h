#pragma once
// Qt Test checks for the project's own result types.

#include <QTest>

// Verifies that an Expected<T> (or Expected<void>) holds a value; when it holds an error, the
// failure says the error's message rather than only the expression that failed.
// The expression is evaluated once, so it may be a call.
#define QVERIFY_OK(expected)                                                                                 \
    do {                                                                                                     \
        const auto &verifiedOk_ = (expected);                                                                \
        QVERIFY2(verifiedOk_, verifiedOk_ ? "" : qPrintable(verifiedOk_.message()));                         \
    } while (false)
