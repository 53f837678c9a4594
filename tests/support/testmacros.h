#pragma once
// Qt Test checks for the project's own result types.

#include <QTest>

// Verifies that an Expected<T> (or Expected<void>) holds a value; when it holds an error, the
// failure says the error's message rather than only the expression that failed.
#define QVERIFY_OK(expected) QVERIFY2(expected, (expected) ? "" : qPrintable((expected).message()))
