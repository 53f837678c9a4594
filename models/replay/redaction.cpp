#include "redaction.h"
