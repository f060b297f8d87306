/* Services of the FMI wrapper to a model's C file, in addition to the contract of model.h.
 *
 * Parameter bindings. Every non-final parameter is an FMU parameter the importer may set. A parameter
 * whose Modelica binding is another parameter (corner.data.k1 = data.k1) follows that parameter
 * unless the importer set it itself: the wrapper applies these aliases (generated from rumoca's
 * flattening) before model_calculated_parameters. A parameter bound to an expression, or to a final
 * parameter, is the model file's job: write its binding with BINDING in model_calculated_parameters,
 * after whatever it depends on, e.g.
 *
 *     BINDING(corner_FDesign, R(corner_data_mSprung) * R(corner_g));
 *
 * which assigns the value unless the importer set corner.FDesign (a Modelica modification wins over
 * the declaration's binding, exactly so).
 *
 * Errors. model_error() logs a message through the importer's logger and makes the FMI function that
 * called the model return fmi2Error (e.g. a parameter outside its valid range in
 * model_calculated_parameters). Use it for conditions the model cannot continue from.
 */
#ifndef VEHICLERTM_MODEL_SUPPORT_H
#define VEHICLERTM_MODEL_SUPPORT_H

#include "model.h"

/* Nonzero if the importer set the Real / Integer / Boolean parameter with this value reference since
 * instantiation or the last fmi2Reset. */
int model_real_was_set(const ModelInstance *m, unsigned int vr);
int model_integer_was_set(const ModelInstance *m, unsigned int vr);
int model_boolean_was_set(const ModelInstance *m, unsigned int vr);

#define BINDING(stem, expr)                           \
    do {                                              \
        if (!model_real_was_set(m, VR_##stem))        \
            R(stem) = (expr);                         \
    } while (0)
#define BINDING_INTEGER(stem, expr)                   \
    do {                                              \
        if (!model_integer_was_set(m, VI_##stem))     \
            I(stem) = (expr);                         \
    } while (0)
#define BINDING_BOOLEAN(stem, expr)                   \
    do {                                              \
        if (!model_boolean_was_set(m, VB_##stem))     \
            B(stem) = (expr);                         \
    } while (0)

/* Log an error (printf format) and make the calling FMI function fail with fmi2Error. */
void model_error(ModelInstance *m, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Log an informational message (shown when the importer switched logging on). */
void model_log(ModelInstance *m, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
