# One INTERFACE target carries the language standard, warnings and Qt defines,
# so every library, executable and test is built the same way.
add_library(verity_common INTERFACE)
target_compile_features(verity_common INTERFACE cxx_std_20)
set(CMAKE_CXX_EXTENSIONS OFF)

target_compile_options(verity_common INTERFACE
    $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                   -Wold-style-cast -Wcast-align -Woverloaded-virtual
                                   -Wconversion -Wno-sign-conversion>)

target_compile_definitions(verity_common INTERFACE
    QT_NO_CAST_FROM_ASCII            # every string literal says what encoding it is
    QT_NO_CAST_TO_ASCII
    QT_NO_URL_CAST_FROM_STRING
    QT_NO_NARROWING_CONVERSIONS_IN_CONNECT
    QT_NO_FOREACH
    QT_DISABLE_DEPRECATED_BEFORE=0x060400)

# gold links a program with its debug information in about half the time ld.bfd takes, and the
# tests are a hundred programs.
include(CheckLinkerFlag)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    check_linker_flag(CXX -fuse-ld=gold VERITY_LINKER_GOLD)
endif()
if(VERITY_LINKER_GOLD)
    target_link_options(verity_common INTERFACE -fuse-ld=gold)
endif()

# Nearly every file includes Qt's containers and nlohmann/json, and parsing them is a third of
# a file's build time: precompile them once for the layers, once for the tests.
option(VERITY_PCH "Precompile the Qt, JSON and standard headers most sources include" ON)
set(VERITY_PCH_HEADERS
    <QByteArray> <QDateTime> <QHash> <QJsonArray> <QJsonDocument> <QJsonObject> <QList> <QMap>
    <QObject> <QRegularExpression> <QSet> <QString> <QStringList> <QTimer> <QUrl> <QVariant>
    <nlohmann/json.hpp>
    <algorithm> <functional> <map> <memory> <optional> <string> <vector>)
if(VERITY_PCH)
    # A precompiled header that a compiler sets aside (its macros differ) says so, and fails CI.
    target_compile_options(verity_common INTERFACE $<$<CXX_COMPILER_ID:GNU,Clang>:-Winvalid-pch>)
endif()

option(VERITY_WERROR "Treat compiler warnings as errors" OFF)
if(VERITY_WERROR)
    target_compile_options(verity_common INTERFACE -Werror)
endif()

# gcov's counters, for line and branch coverage: each object writes a .gcda beside it when
# the program that ran it exits (see "Coverage" in resources/docs/building.md).
option(VERITY_COVERAGE "Build with gcov coverage instrumentation (--coverage)" OFF)
if(VERITY_COVERAGE)
    target_compile_options(verity_common INTERFACE --coverage)
    target_link_options(verity_common INTERFACE --coverage)
endif()

option(VERITY_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
if(VERITY_SANITIZE)
    target_compile_options(verity_common INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer)
    target_link_options(verity_common INTERFACE -fsanitize=address,undefined)
endif()
