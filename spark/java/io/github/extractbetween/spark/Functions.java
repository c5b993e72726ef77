package io.github.extractbetween.spark;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.types.AbstractDataType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.unsafe.types.UTF8String;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The two SQL functions as Catalyst expressions, built when a query is analysed: the markers
 * and options are checked there (an {@code AnalysisException} names the argument and why),
 * and the expression is a {@link Call} of {@link Rows} (a {@code StaticInvoke}), which Spark compiles into its
 * generated code.
 */
final class Functions {
    static final String ALL = "extract_between_all";
    static final String FIRST = "extract_between_first";

    private Functions() {}

    /** {@code extract_between_all(text, start, end[, max_matches[, on_unclosed]])}. */
    static Expression all(Seq<Expression> arguments) {
        List<Expression> args = CollectionConverters.asJava(arguments);
        arity(ALL, args, 3, 5);
        Expression[] markers = markers(ALL, args);
        UTF8String options = options(ALL, args.size() > 3 ? args.get(3) : null, args.size() > 4 ? args.get(4) : null);
        return invoke(
                ALL,
                args,
                "all",
                DataTypes.createArrayType(DataTypes.StringType, false),
                args.get(0),
                markers,
                Literal.create(options, DataTypes.StringType));
    }

    /** {@code extract_between_first(text, start, end[, on_unclosed])}. */
    static Expression first(Seq<Expression> arguments) {
        List<Expression> args = CollectionConverters.asJava(arguments);
        arity(FIRST, args, 3, 4);
        Expression[] markers = markers(FIRST, args);
        UTF8String options = options(FIRST, ONE, args.size() > 3 ? args.get(3) : null);
        return invoke(
                FIRST,
                args,
                "first",
                DataTypes.StringType,
                args.get(0),
                markers,
                Literal.create(options, DataTypes.StringType));
    }

    /**
     * The call of {@code Rows.method}, named as Spark names its own functions' columns
     * ({@code extract_between_all(html, <b>, </b>)}) rather than by the method it calls.
     */
    private static Expression invoke(
            String function,
            List<Expression> given,
            String method,
            DataType type,
            Expression text,
            Expression[] markers,
            Expression... options) {
        List<Expression> args = new ArrayList<>(List.of(text, markers[0], markers[1]));
        args.addAll(List.of(options));
        List<AbstractDataType> types = new ArrayList<>();
        for (Expression arg : args) {
            // A text of any collation is taken as it is (its bytes are UTF-8 whatever the
            // collation; the markers match byte for byte, the card's equality); another type
            // is cast to a string as Spark's own string functions cast it.
            boolean string = arg.dataType() instanceof StringType;
            types.add(arg == text && !string ? DataTypes.StringType : arg.dataType());
        }
        List<String> shown = new ArrayList<>();
        for (Expression arg : given.subList(3, given.size())) {
            shown.add(org.apache.spark.sql.catalyst.util.package$.MODULE$.toPrettySQL(arg, false));
        }
        return new Call(
                function,
                type,
                method,
                CollectionConverters.asScala(args).toList(),
                CollectionConverters.asScala(types).toList(),
                shown);
    }

    /**
     * Throws an {@code AnalysisException} naming the function and why. Scala code throws it
     * as any exception; Java calls it checked, so it is thrown from here, past the compiler.
     */
    static RuntimeException error(String function, String message) {
        // Spark's error class for a message of the caller's own words.
        scala.collection.immutable.Map<String, String> parameters = scala.collection.immutable.Map$.MODULE$.from(
                CollectionConverters.asScala(java.util.Map.of("errorMessage", function + ": " + message)));
        return Functions.<RuntimeException>raise(new AnalysisException("_LEGACY_ERROR_TEMP_1332", parameters));
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E raise(Throwable e) throws E {
        throw (E) e;
    }

    private static void arity(String function, List<Expression> args, int least, int most) {
        if (args.size() < least || args.size() > most) {
            throw error(function, "takes " + least + " to " + most + " arguments, not " + args.size());
        }
    }

    /** The value of a constant argument, or an error naming it. */
    private static Object constant(String function, Expression arg, String name) {
        if (!arg.foldable()) {
            throw error(function, name + " must be a constant (a literal), not " + arg.sql());
        }
        return arg.eval(null);
    }

    /** The start and end markers as literals, checked against the card. */
    private static Expression[] markers(String function, List<Expression> args) {
        byte[][] bytes = new byte[2][];
        String[] names = {"start", "end"};
        for (int i = 0; i < 2; i++) {
            Expression arg = args.get(1 + i);
            if (!(arg.dataType() instanceof StringType)) {
                throw error(function, names[i] + " must be a string, not " + arg.dataType().sql());
            }
            Object value = constant(function, arg, names[i]);
            if (value == null) {
                throw error(function, names[i] + " must be a string, not NULL");
            }
            bytes[i] = ((UTF8String) value).getBytes();
        }
        try {
            Native.ensureLoaded();
        } catch (UnsupportedOperationException e) {
            throw error(function, e.getMessage());
        }
        byte[] why = Native.check(bytes[0], bytes[1]);
        if (why != null) {
            throw error(function, new String(why, StandardCharsets.UTF_8));
        }
        return new Expression[] {
            Literal.create(UTF8String.fromBytes(bytes[0]), DataTypes.StringType),
            Literal.create(UTF8String.fromBytes(bytes[1]), DataTypes.StringType)
        };
    }

    /** {@code extract_between_first}'s cap: one match. */
    private static final Expression ONE = Literal.create(1L, DataTypes.LongType);

    /**
     * The call's options, checked by the library (the native side words a refusal): {@code
     * max_matches} a constant integer or NULL, {@code on_unclosed} a constant string or NULL
     * (NULL and a left-out argument mean the library's defaults). The answer is what the rows
     * carry to the native side.
     */
    private static UTF8String options(String function, Expression capArg, Expression policyArg) {
        byte[] capType = null;
        boolean capGiven = false;
        long cap = 0;
        if (capArg != null && !(capArg.dataType() instanceof NullType)) {
            DataType type = capArg.dataType();
            boolean integral = type instanceof IntegerType || type instanceof LongType
                    || type instanceof ShortType || type instanceof ByteType;
            if (!integral) {
                capType = type.sql().getBytes(StandardCharsets.UTF_8);
            } else if (constant(function, capArg, "max_matches") instanceof Number value) {
                capGiven = true;
                cap = value.longValue();
            }
        }
        byte[] policyType = null;
        byte[] policy = null;
        if (policyArg != null && !(policyArg.dataType() instanceof NullType)) {
            if (!(policyArg.dataType() instanceof StringType)) {
                policyType = policyArg.dataType().sql().getBytes(StandardCharsets.UTF_8);
            } else if (constant(function, policyArg, "on_unclosed") instanceof UTF8String value) {
                policy = value.getBytes();
            }
        }
        byte[] why = Native.checkOptions(capType, capGiven, cap, policyType, policy);
        if (why != null) {
            throw error(function, new String(why, StandardCharsets.UTF_8));
        }
        return UTF8String.fromBytes(Native.options(capGiven, cap, policy));
    }
}
